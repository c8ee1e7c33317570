/**
 * The request pipeline: typed clients built from the HttpApi contract of
 * `@connected-vehicle/schema/Api`, run through one `HttpClient` that adds the
 * JSON accept header, the User-Agent and the bearer credential, with a
 * per-attempt timeout covering the body, retries with backoff and jitter,
 * a single 401 refresh-and-replay, the request id on results and errors,
 * and a span per call.
 *
 * @since 0.1.0
 */
import { Cause, Clock, Context, Duration, Effect, Exit, Layer, Option, Random, Redacted, Schema, SchemaAST, Tracer } from "effect"
import { isFailure } from "effect/Result"
import { constTrue } from "effect/Function"
import { SchemaJITCompiler } from "effect/schema"
import { HttpClient, HttpClientRequest, HttpTraceContext } from "effect/http"
import type { Headers, HttpClientError, HttpClientResponse } from "effect/http"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { HttpApi, HttpApiClient, HttpApiSchema } from "effect/http-api"
import type { OAuthBadRequest, OAuthUnauthorized } from "@connected-vehicle/schema/Api"
import * as Decoder from "@connected-vehicle/schema/Decoder"
import { fromIssue, Identifier, InvalidArgument, isIdentifier } from "@connected-vehicle/schema/InvalidArgument"
import { OAuthErrorBody } from "@connected-vehicle/schema/OAuth"
import { ErrorEnvelope, fromEnvelope, RateLimitError } from "@connected-vehicle/schema/ServiceError"
import type { ServiceError } from "@connected-vehicle/schema/ServiceError"
import { Credentials } from "./Credentials.ts"
import type { RateLimitPolicy, RetryPolicy, Roots } from "./TransportConfig.ts"
import { requestIdOf, TransportConfig } from "./TransportConfig.ts"
import {
  InvalidRequest,
  MalformedErrorBody,
  OAuthError,
  RequestTimeout,
  ResponseDecodeError,
  TransportFailure,
  UnexpectedStatus
} from "./TransportError.ts"
import type { CredentialsError, TransportError } from "./TransportError.ts"
import { isNode, loadNodeHttpClient, platformHttpClient, withoutCredentials } from "./internal/http.ts"
import type { Hook } from "./internal/hooks.ts"
import * as Hooks from "./internal/hooks.ts"
import * as SdkLog from "./internal/log.ts"
import type { ExchangeTimeout, LeanParts, LeanResponse } from "./internal/undici.ts"
import { bodyOf, CurrentExchangeTimeout, isEmpty, leanPartsOf, send } from "./internal/undici.ts"
import type { Given } from "./internal/request.ts"
import { makeBuilder } from "./internal/request.ts"
import * as RetryAfter from "./RetryAfter.ts"

/**
 * A decoded response with the HTTP context it came with.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LegacyApi } from "@connected-vehicle/schema/Api"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 *
 * const program = Effect.gen(function*() {
 *   const legacy = yield* Transport.client(LegacyApi, "legacy")
 *   const result: Transport.Result<{ readonly distance: number }> = yield* legacy.odometer({ params: { id: "v-1" } })
 *   return [result.value.distance, result.status, result.requestId, result.headers["sc-data-age"]]
 * })
 * ```
 * @since 0.1.0
 */
export interface Result<A> {
  readonly value: A
  readonly status: number
  /** The request id: the first of `TransportConfig.requestIdHeaders` present (`sc-request-id`, else `x-request-id`, by default). */
  readonly requestId: string | undefined
  /** The response headers (lower-case names). */
  readonly headers: Headers.Headers
}

/**
 * Per-call overrides of the configured policies: the same names as the
 * Promise client's options (`timeout`, `maxRetries`), plus `retry` and
 * `rateLimit` for the rest of the policies.
 *
 * A `timeout` that is not a positive, finite duration, or a `maxRetries` that
 * is not an integer >= 0, fails the call with `InvalidArgument` (field
 * `timeout` or `maxRetries`) before anything is sent.
 *
 * @example
 * ```ts
 * import type { CallOptions } from "@connected-vehicle/transport/Transport"
 *
 * const patient: CallOptions = { timeout: "5 seconds", maxRetries: 5, rateLimit: { wait: true } }
 * ```
 * @since 0.1.0
 */
export interface CallOptions {
  /** Timeout of each attempt (milliseconds or a `Duration` input such as `"5 seconds"`); default `TransportConfig.timeoutMillis`. */
  readonly timeout?: Duration.Input | undefined
  /** Retries after the first attempt (0: none); wins over `retry.maxAttempts`. */
  readonly maxRetries?: number | undefined
  /**
   * Timeout of each attempt in milliseconds.
   *
   * @deprecated use `timeout` (which wins when both are given).
   */
  readonly timeoutMillis?: number | undefined
  /** The retry policy; `retry.maxAttempts` counts the first attempt (`maxRetries` + 1), prefer `maxRetries`. */
  readonly retry?: { readonly [K in keyof RetryPolicy]?: RetryPolicy[K] | undefined } | undefined
  readonly rateLimit?: { readonly [K in keyof RateLimitPolicy]?: RateLimitPolicy[K] | undefined } | undefined
  /**
   * Runs on every response of this call (retried and failed ones too), like
   * the client's own `onResponse` (see `ClientOptions`) and after it; a
   * failure, defect or throw of it is ignored.
   */
  readonly onResponse?: ((response: HttpClientResponse.HttpClientResponse) => Effect.Effect<void>) | undefined
}

/**
 * The errors of one endpoint: every service error, every transport error
 * (`InvalidArgument` for a request argument refused before sending;
 * `CredentialsError` only when the client uses a credential), and
 * `OAuthError` for endpoints of the authorization server.
 *
 * @example
 * ```ts
 * import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
 * import type { SignalsGroup } from "@connected-vehicle/schema/Api"
 * import type { ErrorOf } from "@connected-vehicle/transport/Transport"
 *
 * type Get = HttpApiEndpoint.WithIdentifier<HttpApiGroup.Endpoints<SignalsGroup>, "get">
 * type GetSignalError = ErrorOf<Get>
 * ```
 * @since 0.1.0
 */
export type ErrorOf<Endpoint extends HttpApiEndpoint.ConstraintRequest, Authenticated extends boolean = true> =
  | ServiceError
  | Exclude<TransportError, CredentialsError>
  | (Authenticated extends true ? CredentialsError : never)
  | ([Extract<Endpoint["~Error"]["Type"], OAuthBadRequest | OAuthUnauthorized>] extends [never] ? never : OAuthError)

type Part<Key extends string, S extends Schema.Constraint> = [S["Type"]] extends [never] ? {}
  : {} extends S["Type"] ? { readonly [K in Key]?: S["Type"] }
  : { readonly [K in Key]: S["Type"] }

/**
 * The request argument of an endpoint: `params`, `query`, `headers` and
 * `payload` as the contract declares them (a part whose fields are all
 * optional may be left out).
 *
 * @example
 * ```ts
 * import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
 * import type { LegacyGroup } from "@connected-vehicle/schema/Api"
 * import type { RequestOf } from "@connected-vehicle/transport/Transport"
 *
 * type OdometerRequest = RequestOf<HttpApiEndpoint.WithIdentifier<HttpApiGroup.Endpoints<LegacyGroup>, "odometer">>
 * const request: OdometerRequest = { params: { id: "v-1" } }
 * ```
 * @since 0.1.0
 */
export type RequestOf<Endpoint extends HttpApiEndpoint.ConstraintRequest> =
  & Part<"params", Endpoint["~Params"]>
  & Part<"query", Endpoint["~Query"]>
  & Part<"headers", Endpoint["~Headers"]>
  & Part<"payload", Endpoint["~Payload"]>

/**
 * One client function.
 *
 * @example
 * ```ts
 * import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
 * import type { LegacyGroup } from "@connected-vehicle/schema/Api"
 * import type { Method } from "@connected-vehicle/transport/Transport"
 *
 * type Odometer = Method<HttpApiEndpoint.WithIdentifier<HttpApiGroup.Endpoints<LegacyGroup>, "odometer">>
 * ```
 * @since 0.1.0
 */
export type Method<Endpoint extends HttpApiEndpoint.ConstraintRequest, Authenticated extends boolean = true> = (
  ...args: {} extends RequestOf<Endpoint> ? [request?: RequestOf<Endpoint>, options?: CallOptions]
    : [request: RequestOf<Endpoint>, options?: CallOptions]
) => Effect.Effect<Result<HttpApiClient.SuccessType<Endpoint["~Success"]>>, ErrorOf<Endpoint, Authenticated>>

/**
 * The client of one group: one {@link Method} per endpoint.
 *
 * @example
 * ```ts
 * import type { LegacyGroup } from "@connected-vehicle/schema/Api"
 * import type { GroupClient } from "@connected-vehicle/transport/Transport"
 *
 * type LegacyClient = GroupClient<LegacyGroup, "legacy">
 * ```
 * @since 0.1.0
 */
export type GroupClient<Groups extends HttpApiGroup.Constraint, Name extends string, Authenticated extends boolean = true> = {
  readonly [
    Endpoint in Extract<HttpApiGroup.EndpointsWithIdentifier<Groups, Name>, HttpApiEndpoint.ConstraintRequest> as
      Endpoint["identifier"]
  ]: Method<Endpoint, Authenticated>
}

/**
 * The transport: the configuration and the `HttpClient` with the common
 * request pipeline (JSON accept, User-Agent, bearer credential of the call).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Transport } from "@connected-vehicle/transport/Transport"
 *
 * const timeout = Effect.map(Effect.service(Transport), (t) => t.config.timeoutMillis)
 * ```
 * @since 0.1.0
 */
export class Transport extends Context.Service<Transport, {
  readonly config: TransportConfig["Service"]
  readonly httpClient: HttpClient.HttpClient
}>()("@connected-vehicle/transport/Transport") {}

/**
 * What one attempt saw: the request as it left the transport's pipeline
 * (after any request mapping placed before it, e.g. a replaced token URL)
 * and the status and request id once the response headers arrived. One per
 * attempt, never shared: the pipeline records only the first request it sees
 * in the attempt's fiber, so a request sent from inside a `transformClient`
 * hook cannot overwrite it.
 */
interface AttemptState {
  request: HttpClientRequest.HttpClientRequest | undefined
  status: number | undefined
  requestId: string | undefined
}

const CurrentAttempt = Context.Reference<AttemptState | undefined>(
  "@connected-vehicle/transport/Transport/CurrentAttempt",
  { defaultValue: () => undefined }
)

/**
 * Options of {@link make} / {@link layerWith}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpClient } from "effect/http"
 * import type { Options } from "@connected-vehicle/transport/Transport"
 *
 * const options: Options = { transformClient: HttpClient.tapRequest(() => Effect.void) }
 * ```
 * @since 0.1.0
 */
export interface Options {
  /**
   * Transforms the transport's `HttpClient` (after its own request mapping:
   * root, accept, User-Agent and bearer are set when a `mapRequest` of the
   * transformed client runs), like the `transformClient` option of Effect's
   * AI provider clients: add headers, a proxy, logging, a custom retry...
   */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/**
 * Builds the transport service from its configuration and an `HttpClient`.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { HttpClient, HttpClientRequest } from "effect/http"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 *
 * const TransportLive = Layer.effect(
 *   Transport.Transport,
 *   Transport.make({ transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-team", "fleet")) })
 * )
 * ```
 * @since 0.1.0
 */
export const make = (
  options?: Options
): Effect.Effect<Transport["Service"], never, TransportConfig | HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const config = yield* TransportConfig
    const base = yield* HttpClient.HttpClient
    const fixed = fixedHeaders(config.userAgent)
    // runs before any transformation of the underlying client: requests
    // arrive here complete (absolute URL, bearer), see `makeMethod`
    const pipeline = HttpClient.mapRequestInputEffect(base, (request) =>
      Effect.map(Effect.service(CurrentAttempt), (attempt) => {
        const req = withFixedHeaders(request, fixed)
        if (attempt !== undefined && attempt.request === undefined) attempt.request = req
        return req
      }))
    const lean = options?.transformClient === undefined ? leanPartsOf(base) : undefined
    if (lean !== undefined) leanPipelines.set(pipeline, lean)
    const httpClient = options?.transformClient === undefined ? pipeline : options.transformClient(pipeline)
    return { config, httpClient }
  })

/**
 * The transports' clients that are the pipeline over the lean client of
 * `internal/undici.ts` and nothing else, with that client's parts: their
 * attempts are timed by that client (one timer per exchange, no child
 * fiber), and a call's first attempt may be sent on its dispatcher directly
 * (see `First`).
 */
const leanPipelines = new WeakMap<HttpClient.HttpClient, LeanParts>()

/** The request with the call's credential, unless it carries an `authorization` of its own (the token endpoint's). */
const withBearer = (
  request: HttpClientRequest.HttpClientRequest,
  token: Redacted.Redacted<string> | undefined
): HttpClientRequest.HttpClientRequest =>
  token !== undefined && request.headers["authorization"] === undefined
    ? HttpClientRequest.setHeader(request, "authorization", `Bearer ${Redacted.value(token)}`)
    : request

/** The headers every request of the transport carries. */
const fixedHeaders = (userAgent: string) => ({ accept: "application/json", "user-agent": userAgent }) as const

/** The request with the {@link fixedHeaders}: the transport's own requests carry them already (see `makeBuilder`), no copy. */
const withFixedHeaders = (
  request: HttpClientRequest.HttpClientRequest,
  fixed: ReturnType<typeof fixedHeaders>
): HttpClientRequest.HttpClientRequest =>
  request.headers["accept"] === fixed.accept && request.headers["user-agent"] === fixed["user-agent"]
    ? request
    : HttpClientRequest.setHeaders(request, fixed)

/**
 * The `HttpClient` the SDK's convenience layers use unless given one: on Node,
 * undici through `@effect/platform-node` (an optional peer dependency,
 * imported when the layer is built): the transport's own requests (those for
 * which the client makes no span of its own, see `TransportConfig.httpSpans`)
 * go straight to the dispatcher of `NodeHttpClient`, one `dispatch` with the
 * body collected as it arrives and no `AbortController` (interrupting a call
 * still aborts its request), about 0.1 ms of CPU per call less than
 * `NodeHttpClient.layerUndici`, which sends every other request (see the
 * README); elsewhere (browsers, Deno, Bun), or when `@effect/platform-node`
 * cannot be loaded, `FetchHttpClient.layer`. Unlike `fetch`, undici sends no
 * `accept-encoding` and follows no redirect (the service's API answers
 * neither way).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 * import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
 *
 * const TransportLive = Transport.layer.pipe(Layer.provide([TransportConfig.layerConfig, Transport.layerHttpClient]))
 * ```
 * @since 0.1.0
 */
export const layerHttpClient: Layer.Layer<HttpClient.HttpClient> = Layer.unwrap(
  platformHttpClient(isNode(), loadNodeHttpClient)
)

/**
 * Builds the transport from its configuration and an `HttpClient`
 * ({@link layerHttpClient} picks the faster one of the platform).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { NodeHttpClient } from "@effect/platform-node"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 * import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
 *
 * const TransportLive = Transport.layer.pipe(
 *   Layer.provide([TransportConfig.layerConfig, NodeHttpClient.layerUndici])
 * )
 * ```
 * @since 0.1.0
 */
export const layer: Layer.Layer<Transport, never, TransportConfig | HttpClient.HttpClient> = Layer.effect(Transport, make())

/**
 * Like {@link layer}, with {@link Options} (`transformClient`).
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { HttpClient } from "effect/http"
 * import { NodeHttpClient } from "@effect/platform-node"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 * import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
 *
 * const TransportLive = Transport.layerWith({
 *   transformClient: HttpClient.tapRequest((request) => Effect.logDebug(request.method))
 * }).pipe(Layer.provide([TransportConfig.layerConfig, NodeHttpClient.layerUndici]))
 * ```
 * @since 0.1.0
 */
export const layerWith = (options: Options): Layer.Layer<Transport, never, TransportConfig | HttpClient.HttpClient> =>
  Layer.effect(Transport, make(options))

const rootOfApi: Record<string, keyof Roots> = {
  vehicle: "base",
  management: "management",
  compatibility: "compatibility",
  authorization: "authorization",
  legacy: "legacy"
}

/**
 * Options of {@link client} / {@link publicClient}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { ClientOptions } from "@connected-vehicle/transport/Transport"
 *
 * const options: ClientOptions = {
 *   root: "legacy",
 *   onResponse: (response) => response.headers["sunset"] === undefined ? Effect.void : Effect.logWarning("sunset")
 * }
 * ```
 * @since 0.1.0
 */
export interface ClientOptions {
  /** The root the client's requests go to (default: the API's, `VehicleApi` → base, `ManagementApi` → management...). */
  readonly root?: keyof Roots | undefined
  /**
   * Runs on every response of the client's calls (retried and failed ones
   * too, whatever the status), before its body is decoded, in the call's
   * fiber: to watch headers (a deprecation notice, rate-limit counters...)
   * without wrapping the `HttpClient` (a wrapped client is not the
   * transport's own, so its attempts are timed with a child fiber and a timer
   * instead of the lean client's single timer). On the lean client of
   * `layerHttpClient` (Node's default) it runs once the whole response has
   * arrived (the transport reads every body whole), on other clients at the
   * head. Keep it short: on the lean client the attempt's timeout no longer
   * runs by then. A failure or defect of the effect, or a throw of the function, is ignored.
   */
  readonly onResponse?: ((response: HttpClientResponse.HttpClientResponse) => Effect.Effect<void>) | undefined
}

/**
 * The typed client of one group of an API of `@connected-vehicle/schema/Api`,
 * authenticated with the {@link Credentials} service. The root is chosen by
 * the API (`VehicleApi` → base, `ManagementApi` → management, ...).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { VehicleApi } from "@connected-vehicle/schema/Api"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 *
 * const program = Effect.gen(function*() {
 *   const signals = yield* Transport.client(VehicleApi, "signals")
 *   const page = yield* signals.list({ params: { vehicleId: "v-1" }, headers: { "sc-user-id": "u-1" } })
 *   return page.value.meta.totalCount
 * })
 * ```
 * @since 0.1.0
 */
export const client = <ApiId extends string, Groups extends HttpApiGroup.Constraint, const Name extends HttpApiGroup.Identifier<Groups>>(
  api: HttpApi.HttpApi<ApiId, Groups>,
  group: Name,
  options?: ClientOptions
): Effect.Effect<GroupClient<Groups, Name>, never, Transport | Credentials> =>
  Effect.flatMap(Effect.service(Credentials), (credentials) => makeClient(api, group, credentials, options))

/**
 * Like {@link client} but without a bearer credential (the compatibility
 * listing, or the token endpoint, whose `authorization` header is explicit).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { CompatibilityApi } from "@connected-vehicle/schema/Api"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 *
 * const program = Effect.gen(function*() {
 *   const compatibility = yield* Transport.publicClient(CompatibilityApi, "compatibility")
 *   return yield* compatibility.list({ query: { "filter[region]": "US" } })
 * })
 * ```
 * @since 0.1.0
 */
export const publicClient = <ApiId extends string, Groups extends HttpApiGroup.Constraint, const Name extends HttpApiGroup.Identifier<Groups>>(
  api: HttpApi.HttpApi<ApiId, Groups>,
  group: Name,
  options?: ClientOptions
): Effect.Effect<GroupClient<Groups, Name, false>, never, Transport> =>
  makeClient(api, group, undefined, options) as Effect.Effect<GroupClient<Groups, Name, false>, never, Transport>

const makeClient = <ApiId extends string, Groups extends HttpApiGroup.Constraint, Name extends HttpApiGroup.Identifier<Groups>>(
  api: HttpApi.HttpApi<ApiId, Groups>,
  group: Name,
  credentials: Credentials["Service"] | undefined,
  options?: ClientOptions
): Effect.Effect<GroupClient<Groups, Name>, never, Transport> =>
  Effect.gen(function*() {
    const transport = yield* Transport
    // what the SDK logs is decided here, once per client, not per call
    const log = yield* SdkLog.current(transport.config.logLevel)
    const root = options?.root ?? rootOfApi[api.identifier] ?? "base"
    const baseUrl = transport.config.roots[root].replace(/\/+$/, "")
    const groupDef = (api.groups as Record<string, HttpApiGroup.Constraint>)[group]!
    const out: Record<string, unknown> = {}
    // GET-like endpoints build their request directly from the contract (see
    // `makeBuilder`); the others are encoded by HttpApiClient, whose
    // HttpClient hands the request back instead of sending it. Either way each
    // call owns its request (and its URL) before any attempt.
    let captured: Record<string, (request: unknown) => Effect.Effect<never, unknown>> | undefined
    const direct: Record<string, Builder | undefined> = {}
    HttpApi.reflect(api as any, {
      predicate: ({ group: g }) => g.identifier === group,
      onGroup() {},
      onEndpoint({ endpoint, mergedAnnotations, middleware }) {
        direct[endpoint.identifier] = makeBuilder(
          endpoint,
          baseUrl,
          mergedAnnotations,
          middleware.size > 0,
          fixedHeaders(transport.config.userAgent)
        )
      }
    })
    for (const [name, endpoint] of Object.entries(groupDef.endpoints)) {
      const e = endpoint as unknown as HttpApiEndpoint.Top
      let build: Builder | undefined = direct[name]
      if (build === undefined) {
        captured ??= (yield* (HttpApiClient.group(api as any, { group, httpClient: capture }) as Effect.Effect<unknown>)) as Record<
          string,
          (request: unknown) => Effect.Effect<never, unknown>
        >
        build = captureBuilder(captured[name]!, baseUrl, {
          params: e.params !== undefined,
          query: e.query !== undefined,
          headers: e.headers !== undefined
        })
      }
      out[name] = makeMethod({
        transport,
        credentials,
        log,
        spanName: `connected-vehicle.${group}.${name}`,
        method: e.method,
        path: e.path,
        baseUrl,
        build,
        ...makeDecoder(api as any, group, name),
        onResponse: options?.onResponse
      })
    }
    return out as GroupClient<Groups, Name>
  })

/** The request built by HttpApiClient, handed back by {@link capture}. */
class Captured {
  readonly request: HttpClientRequest.HttpClientRequest
  constructor(request: HttpClientRequest.HttpClientRequest) {
    this.request = request
  }
}

/** A request builder on HttpApiClient's encoding (endpoints with a payload). */
const captureBuilder = (
  encode: (request: unknown) => Effect.Effect<never, unknown>,
  baseUrl: string,
  declared: { readonly params: boolean; readonly query: boolean; readonly headers: boolean }
): Builder =>
(given) =>
  Effect.catch(
    encode({
      ...given,
      ...(declared.params && given.params === undefined ? { params: {} } : {}),
      ...(declared.query && given.query === undefined ? { query: {} } : {}),
      ...(declared.headers && given.headers === undefined ? { headers: {} } : {}),
      responseMode: "response-only"
    }),
    (e) => e instanceof Captured ? Effect.succeed(HttpClientRequest.setUrl(e.request, baseUrl + e.request.url)) : Effect.fail(e)
  )

type Builder = (given: Given) => HttpClientRequest.HttpClientRequest | Effect.Effect<HttpClientRequest.HttpClientRequest, unknown>

const capture = HttpClient.makeWith(
  (request) => Effect.flatMap(request, (r) => Effect.fail(new Captured(r))),
  Effect.succeed
) as unknown as HttpClient.HttpClient

interface Decoder {
  readonly decode: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<unknown, unknown>
  /** The decoder of a 200's parsed JSON body, when that is all `decode` does with one. */
  readonly decodeJson: ((json: unknown) => Exit.Exit<unknown, Schema.SchemaError>) | undefined
}

/**
 * The success decoder of an endpoint. When the contract declares one JSON
 * body for 200 (every endpoint but the authorize redirect and the token
 * union), a 200 is read with `response.json` and decoded with that schema
 * directly, which is what `HttpApiClient.decodeResponse` does with more
 * steps; anything else goes through `HttpApiClient.decodeResponse`.
 */
const resolveEncoding = SchemaAST.resolveAt<{ readonly _tag: string }>("~httpApiEncoding")

/** The body schemas given to the JIT already (enabling again would regenerate their code). */
const compiled = new WeakSet<SchemaAST.AST>()

const makeDecoder = (api: HttpApi.HttpApi<string, HttpApiGroup.Constraint>, group: string, endpoint: string): Decoder => {
  const general = HttpApiClient.decodeResponse(api as any, { group, endpoint } as any) as Decoder["decode"]
  let schema: Schema.Top | undefined
  HttpApi.reflect(api as any, {
    predicate: ({ endpoint: e, group: g }) => g.identifier === group && e.identifier === endpoint,
    onGroup() {},
    onEndpoint({ successes }) {
      const only = successes.get(200)
      if (successes.size !== 1 || only === undefined || only.length !== 1) return
      const candidate = only[0]
      if (
        HttpApiSchema.isWithHeaders(candidate) ||
        (resolveEncoding(candidate.ast)?._tag ?? "Json") !== "Json" ||
        SchemaAST.isNull(SchemaAST.toEncoded(candidate.ast))
      ) return
      schema = candidate
    }
  })
  if (schema === undefined) return { decode: general, decodeJson: undefined }
  // generated code for this body and its parts (Effect's schema JIT, with the
  // interpreter kept for error details and where code cannot be generated):
  // for what the decoder below leaves to Effect's (a body that does not
  // decode, parts it does not cover)
  if (!compiled.has(schema.ast)) {
    compiled.add(schema.ast)
    SchemaJITCompiler.enable(schema.ast)
  }
  // an `Exit` (itself an effect): no effect is built around a body that
  // decodes; a body that decodes is walked by the schema package's decoder
  const decodeBody = Decoder.decodeUnknownExit(schema)
  return {
    decode: (response) => response.status === 200 ? Effect.flatMap(response.json, decodeBody) : general(response),
    decodeJson: decodeBody
  }
}

type AnyError = ServiceError | TransportError | OAuthError

interface Ctx {
  readonly status: number
  readonly method: string
  readonly url: string
  readonly requestId?: string
}

/** The state of one call: its request, built once, and its policies. */
interface Call {
  readonly request: HttpClientRequest.HttpClientRequest
  readonly timeoutMillis: number
  readonly retry: RetryPolicy
  readonly rateLimit: RateLimitPolicy
  refreshed: boolean
  deadline: number
  /** The request's URL without credentials, computed when an error needs it. */
  url: string | undefined
  /** The call's span, when a tracer is installed. */
  readonly span: Tracer.Span | undefined
  /** Attempts made (counted only when they are logged). */
  attempts: number
  /** The `onResponse` hooks of the call (the client's and its own), if any. */
  readonly hooks: Hook | undefined
  /** The first attempt when the fast path made it, until the loop takes it over. */
  first: First | undefined
}

/**
 * The first attempt of a call made by the fast path (see `fused` in
 * `makeMethod`), handed to the general loop when it did not end in a decoded
 * 200: the loop takes it as its first attempt (the credential read, or its
 * failure, and the exchange's outcome) and goes on from there (error
 * decoding, 401 refresh, retries) as if it had made it.
 */
interface First {
  /** The credential read for it, or the failure of reading it (`undefined` for a client without one). */
  readonly token: Exit.Exit<Redacted.Redacted<string>, AnyError> | undefined
  /** The exchange, unless reading the credential failed. */
  readonly sent: {
    readonly request: HttpClientRequest.HttpClientRequest
    readonly outcome: Exit.Exit<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>
    readonly timeout: ExchangeTimeout
    /** Whether the `onResponse` hooks have run for the response already. */
    readonly hooked: boolean
  } | undefined
}

const makeMethod = (spec: {
  readonly transport: Transport["Service"]
  readonly credentials: Credentials["Service"] | undefined
  readonly log: SdkLog.SdkLog
  readonly spanName: string
  readonly method: string
  readonly path: string
  /** The root, without a trailing slash. */
  readonly baseUrl: string
  /** The request with its absolute URL. */
  readonly build: Builder
  readonly decode: Decoder["decode"]
  readonly decodeJson: Decoder["decodeJson"]
  readonly onResponse: ((response: HttpClientResponse.HttpClientResponse) => Effect.Effect<void>) | undefined
}) => {
  const { config, httpClient } = spec.transport
  const { build, credentials, decode, decodeJson, log, method, onResponse, path } = spec
  const idempotent = method === "GET" || method === "HEAD" || method === "OPTIONS"
  const templateUrl = spec.baseUrl + path
  const spanOptions = { kind: "client", attributes: { "http.request.method": method, "url.template": templateUrl } } as const
  const requestIdHeaders = config.requestIdHeaders
  const logDebug = log.enabled("Debug")
  // the attempt's timeout armed by the lean client itself (see `leanPipelines`)
  const leanTimed = leanPipelines.has(httpClient) && !config.httpSpans
  // the lean client's dispatcher, for the first attempt of the fast path (see `fused`)
  const lean = leanTimed && !logDebug ? leanPipelines.get(httpClient) : undefined
  const fixed = fixedHeaders(config.userAgent)
  // the attempt's state, and the HttpClient's own span per attempt unless `httpSpans`
  const attemptContext = config.httpSpans
    ? (context: Context.Context<never>, state: AttemptState) => Context.add(context, CurrentAttempt, state)
    : (context: Context.Context<never>, state: AttemptState) =>
      Context.add(Context.add(context, CurrentAttempt, state), HttpClient.TracerDisabledWhen, constTrue)

  /** The URL of the request the attempt sent (as the pipeline saw it), else the call's own request. */
  const urlOf = (call: Call, state: AttemptState): string =>
    state.request !== undefined
      ? withoutCredentials(state.request.url, state.request.urlParams)
      : call.url ??= withoutCredentials(call.request.url, call.request.urlParams)

  const ctxOf = (call: Call, state: AttemptState, status: number, requestId: string | undefined): Ctx => ({
    status,
    method,
    url: urlOf(call, state),
    ...(requestId ? { requestId } : {})
  })

  /**
   * The outcome of a response: the error of a non-2xx, else the decoded body;
   * the `onResponse` hooks run first, unless they have (`hooked`).
   */
  const handle = (
    call: Call,
    state: AttemptState,
    response: HttpClientResponse.HttpClientResponse,
    hooked: boolean
  ): Effect.Effect<Result<unknown>, AnyError> => {
    const status = response.status
    // built once (the result and any `onResponse` share them)
    const requestId = requestIdOf(response.headers, requestIdHeaders)
    state.status = status
    state.requestId = requestId
    let read: Effect.Effect<Result<unknown>, AnyError> = status >= 400
      ? Effect.flatMap(decodeError(response, ctxOf(call, state, status, requestId)), Effect.fail)
      : Effect.map(
        Effect.mapError(decode(response), (error): AnyError => mapDecodeError(error, ctxOf(call, state, status, requestId))),
        (value): Result<unknown> => resultOf(value, status, requestId, response)
      )
    return hooked || call.hooks === undefined ? read : Effect.andThen(call.hooks(response), read)
  }

  /**
   * The `onResponse` hooks of a call: the client's, then the call's own, each
   * one's failure, defect or throw ignored.
   */
  const clientHook = onResponse === undefined ? undefined : Hooks.ignoring(onResponse)
  const hooksOf = (own: Hook | undefined): Hook | undefined =>
    own === undefined ? clientHook : Hooks.ignoring(Hooks.andThen(onResponse, own)!)

  /** One exchange, with its timeout cut to what is left of the budget. */
  const exchange = (
    call: Call,
    token: Redacted.Redacted<string> | undefined,
    budgetMillis: number,
    state: AttemptState
  ): Effect.Effect<Result<unknown>, AnyError> => {
    const first = call.first?.sent
    const built = call.request
    const limit = first?.timeout.millis ?? Math.max(1, Math.min(call.timeoutMillis, budgetMillis))
    const exchanged = (
      outcome: Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>,
      hooked: boolean
    ) =>
      Effect.flatMap(
        Effect.mapError(outcome, (error): AnyError => mapSendError(error, method, path, urlOf(call, state))),
        (response) => handle(call, state, response, hooked)
      )
    const timedOut = () =>
      new RequestTimeout({
        method,
        url: urlOf(call, state),
        timeoutMillis: limit,
        ...(state.status === undefined ? {} : { status: state.status }),
        ...(state.requestId ? { requestId: state.requestId } : {})
      })
    /** An exchange timed by the lean client: whatever it failed with once the timer fired, it timed out. */
    const timedByLean = (self: Effect.Effect<Result<unknown>, AnyError>, timeout: ExchangeTimeout) =>
      Effect.catch(self, (error): Effect.Effect<never, AnyError> => {
        if (!timeout.timedOut) return Effect.fail(error)
        // the head, if it reached the lean client's wrapper of the full client (not the transport)
        const response = timeout.response
        if (response !== undefined && state.status === undefined) {
          state.status = response.status
          state.requestId = requestIdOf(response.headers, requestIdHeaders)
        }
        return Effect.fail(timedOut())
      })
    if (first !== undefined) {
      call.first = undefined
      state.request = first.request
      return timedByLean(exchanged(first.outcome, first.hooked), first.timeout)
    }
    const sent = withBearer(built, token)
    /** The exchange in a child fiber with a timer (any client, or under a non-default `Clock`). */
    const childTimed = () =>
      withTimeout(Effect.updateContext(exchanged(httpClient.execute(sent), false), (context) => attemptContext(context, state)), limit, timedOut)
    if (!leanTimed) return childTimed()
    return Effect.withFiber((fiber) => {
      if (fiber.getRef(Clock.Clock) !== defaultClock) return childTimed()
      // one timer, armed by the lean client for the exchange
      const timeout: ExchangeTimeout = { millis: limit, timedOut: false }
      return timedByLean(
        Effect.updateContext(
          exchanged(httpClient.execute(sent), false),
          (context) => Context.add(attemptContext(context, state), CurrentExchangeTimeout, timeout)
        ),
        timeout
      )
    })
  }

  /**
   * One exchange; with debug logging on, one log line for it once it is over
   * (chosen once per client: nothing is timed or formatted otherwise).
   */
  const attempt: (call: Call, token: Redacted.Redacted<string> | undefined, budgetMillis: number) => Effect.Effect<Result<unknown>, AnyError> =
    !logDebug
      ? (call, token, budgetMillis) => exchange(call, token, budgetMillis, { request: undefined, status: undefined, requestId: undefined })
      : (call, token, budgetMillis) =>
        Effect.clockWith((clock) => {
          const state: AttemptState = { request: undefined, status: undefined, requestId: undefined }
          const n = ++call.attempts
          const start = clock.currentTimeMillisUnsafe()
          return Effect.onExit(exchange(call, token, budgetMillis, state), (exit) =>
            log.log("Debug", "http attempt", {
              method,
              url: SdkLog.redactUrl(urlOf(call, state)),
              attempt: n,
              ...(state.status === undefined ? {} : { status: state.status }),
              durationMillis: clock.currentTimeMillisUnsafe() - start,
              ...(state.requestId ? { requestId: state.requestId } : {}),
              ...(Exit.isSuccess(exit) ? {} : { error: failureOf(exit.cause) })
            }))
        })

  /** The credential of an attempt: for the fast path's first, the one it read (see `First`). */
  const tokenOf = (call: Call, credentials: Credentials["Service"]): Effect.Effect<Redacted.Redacted<string>, AnyError> => {
    const first = call.first
    if (first?.token === undefined) return credentials.token
    // reading it failed: no exchange was made
    if (first.sent === undefined) call.first = undefined
    return first.token
  }

  /** An attempt with the call's credential; a 401 refreshes it and replays, once per call. */
  const authenticated = (call: Call, budgetMillis: number): Effect.Effect<Result<unknown>, AnyError> =>
    credentials === undefined
      ? attempt(call, undefined, budgetMillis)
      : Effect.flatMap(tokenOf(call, credentials), (token) =>
        Effect.catch(attempt(call, token, budgetMillis), (error): Effect.Effect<Result<unknown>, AnyError> => {
          if (call.refreshed || statusOf(error) !== 401 || error._tag === "CredentialsError") return Effect.fail(error)
          call.refreshed = true
          return Effect.flatMap(credentials.refresh(token), (refreshed) =>
            refreshed
              ? Effect.gen(function*() {
                if (logDebug) {
                  yield* log.log("Debug", "replaying after 401 with a refreshed token", {
                    method,
                    url: SdkLog.redactUrl(errorUrl(error) ?? templateUrl)
                  })
                }
                const next = yield* credentials.token
                return yield* attempt(call, next, call.deadline - (yield* Clock.currentTimeMillis))
              })
              : Effect.fail(error))
        }))

  const retryDelay = (call: Call, error: AnyError, n: number): Effect.Effect<number | undefined> => {
    if (!idempotent && !call.retry.retryNonIdempotent) return Effect.succeed(undefined)
    const status = statusOf(error)
    if (status === 429) {
      const after = "retryAfterMillis" in error ? error.retryAfterMillis : undefined
      return Effect.succeed(call.rateLimit.wait && after !== undefined && after <= call.rateLimit.maxWaitMillis ? after : undefined)
    }
    if (!isTransient(error, status)) return Effect.succeed(undefined)
    const { factor, initialDelayMillis, maxDelayMillis } = call.retry
    const exp = Math.min(maxDelayMillis, initialDelayMillis * Math.pow(factor, n - 1))
    // "equal jitter": half fixed, half random, so delays never collapse to zero
    return Effect.map(Random.next, (r) => Math.round(exp / 2 + (exp / 2) * r))
  }

  const loop = (call: Call, n: number, budgetMillis: number): Effect.Effect<Result<unknown>, AnyError> =>
    Effect.catch(authenticated(call, budgetMillis), (error) =>
      Effect.gen(function*() {
        const delay = yield* retryDelay(call, error, n)
        const now = yield* Clock.currentTimeMillis
        if (delay === undefined || n >= call.retry.maxAttempts || now + delay >= call.deadline) {
          return yield* Effect.fail(error)
        }
        call.span?.attribute("retry.count", n)
        if (logDebug) {
          yield* log.log("Debug", "retrying", {
            method,
            url: SdkLog.redactUrl(errorUrl(error) ?? templateUrl),
            attempt: n,
            delayMillis: delay,
            error: error._tag
          })
        }
        yield* Effect.sleep(Duration.millis(delay))
        return yield* loop(call, n + 1, call.deadline - (yield* Clock.currentTimeMillis))
      }))

  return (input: unknown, options?: CallOptions): Effect.Effect<Result<unknown>, AnyError> => {
    const given = (input ?? {}) as Given
    const invalid = checkParams(given)
    if (invalid !== undefined) return Effect.fail(invalid)
    let retry = config.retry
    let rateLimit = config.rateLimit
    let timeoutMillis = config.timeoutMillis
    if (options !== undefined) {
      const resolved = resolveOptions(options, config)
      if (resolved instanceof InvalidArgument) return Effect.fail(resolved)
      retry = resolved.retry
      rateLimit = resolved.rateLimit
      timeoutMillis = resolved.timeoutMillis
    }
    const hooks = hooksOf(options?.onResponse)

    /**
     * The whole call, once its request is built: every error names that
     * request. With `first`, the fast path made the first attempt, and the
     * call started at `startedAt`.
     */
    const run = (
      built: HttpClientRequest.HttpClientRequest,
      span: Tracer.Span | undefined,
      propagate: boolean,
      first?: First,
      startedAt?: number
    ) =>
      Effect.clockWith((clock) => {
        const deadline = (startedAt ?? clock.currentTimeMillisUnsafe()) + retry.maxElapsedMillis
        // without the HttpClient's span per attempt, the call's span is the
        // trace context sent to the service (`traceparent`, `b3`)
        const request = propagate && span !== undefined
          ? HttpClientRequest.setHeaders(built, HttpTraceContext.toHeaders(span))
          : built
        const call: Call = {
          request,
          timeoutMillis,
          retry,
          rateLimit,
          refreshed: false,
          deadline,
          url: undefined,
          span,
          attempts: 0,
          hooks,
          first
        }
        const result = loop(call, 1, retry.maxElapsedMillis)
        return span === undefined ? result : Effect.map(result, (result) => {
          span.attribute("http.response.status_code", result.status)
          if (result.requestId !== undefined) span.attribute("request.id", result.requestId)
          return result
        })
      })
    /**
     * The fast path of a call without a span on the lean client: the first
     * attempt is sent on its dispatcher from here (no `HttpClient`, no
     * context change) and a 200 is decoded where it arrives; any other
     * outcome (an error status, a failure, a body that does not decode, a
     * credential that cannot be read) goes to `run` as its first attempt.
     */
    const fused = (lean: LeanParts, built: HttpClientRequest.HttpClientRequest) => {
      const body = bodyOf(built)
      if (body === undefined || built.headers["upgrade"] !== undefined) return run(built, undefined, false)
      const request = withFixedHeaders(built, fixed)
      const startedAt = defaultClock.currentTimeMillisUnsafe()
      const limit = Math.max(1, Math.min(timeoutMillis, retry.maxElapsedMillis))
      const sendWith = (token: Redacted.Redacted<string> | undefined) =>
        Effect.callback<Result<unknown>, AnyError>((resume) => {
          const sent = withBearer(request, token)
          const timeout: ExchangeTimeout = { millis: limit, timedOut: false }
          const handOver = (outcome: NonNullable<First["sent"]>["outcome"], hooked: boolean) =>
            run(
              built,
              undefined,
              false,
              { token: token === undefined ? undefined : Exit.succeed(token), sent: { request: sent, outcome, timeout, hooked } },
              startedAt
            )
          const decoded = (response: LeanResponse): Effect.Effect<Result<unknown>, AnyError> => {
            if (response.status === 200 && decodeJson !== undefined) {
              const json = response.jsonNow()
              let value: Exit.Exit<unknown, Schema.SchemaError> | undefined
              try {
                value = json === undefined || Exit.isFailure(json) ? undefined : decodeJson(json.value)
              } catch {
                // a schema transformation that throws: the general path makes it the call's defect
                // (here it would be thrown into undici's handler)
              }
              if (value !== undefined && Exit.isSuccess(value)) {
                return Exit.succeed(resultOf(value.value, 200, requestIdOf(response.headers, requestIdHeaders), response))
              }
            }
            return handOver(Exit.succeed(response), hooks !== undefined)
          }
          const exchange = send(
            lean.dispatcher,
            sent,
            body,
            timeout,
            (response) =>
              resume(
                hooks === undefined ? decoded(response) : Effect.andThen(hooks(response), Effect.suspend(() => decoded(response)))
              ),
            (error) => resume(handOver(Exit.fail(error), false))
          )
          return Effect.sync(() => exchange?.abort())
        })
      return credentials === undefined ? sendWith(undefined) : Effect.matchEffect(credentials.token, {
        onFailure: (error) => run(built, undefined, false, { token: Exit.fail(error), sent: undefined }, startedAt),
        onSuccess: sendWith
      })
    }
    const start = (span: Tracer.Span | undefined, propagate: boolean, lean?: LeanParts) => {
      const built = build(given)
      return Effect.isEffect(built)
        ? Effect.flatMap(
          Effect.mapError(built, (error): AnyError => mapBuildError(error, method, path)),
          (request) => run(request, span, propagate)
        )
        : lean !== undefined
        ? fused(lean, built)
        : run(built, span, propagate)
    }
    return Effect.withFiber((fiber) => {
      // Effect's own tracer keeps its spans in memory only: with no tracing
      // backend installed nobody can observe a span, so none is made
      if (fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) {
        return start(
          undefined,
          false,
          lean !== undefined && fiber.getRef(Clock.Clock) === defaultClock && isEmpty(fiber.getRef(lean.undiciOptions))
            ? lean
            : undefined
        )
      }
      const propagate = !config.httpSpans && fiber.getRef(HttpClient.TracerPropagationEnabled) &&
        !fiber.getRef(Tracer.DisablePropagation)
      return Effect.useSpan(spec.spanName, spanOptions, (span) =>
        Effect.withParentSpan(start(span, propagate), span, { captureStackTrace: false }))
    })
  }
}

/**
 * Runs `self` with a timeout: one child fiber and a timer (cheaper than
 * `Effect.timeoutOrElse`, which races two fibers). Under a non-default
 * `Clock` (e.g. `TestClock`) it falls back to `Effect.timeoutOrElse` so that
 * the clock decides.
 */
const withTimeout = <A, E>(self: Effect.Effect<A, E>, millis: number, onTimeout: () => E): Effect.Effect<A, E> =>
  Effect.withFiber((parent) => {
    if (parent.getRef(Clock.Clock) !== defaultClock) {
      return Effect.timeoutOrElse(self, { duration: Duration.millis(millis), orElse: () => Effect.fail(onTimeout()) })
    }
    return Effect.flatMap(Effect.forkChild(self, { startImmediately: true }), (fiber) =>
      Effect.callback<A, E>((resume) => {
        const timer = setTimeout(() => {
          removeObserver()
          fiber.interruptUnsafe()
          resume(Effect.fail(onTimeout()))
        }, millis)
        const removeObserver = fiber.addObserver((exit) => {
          clearTimeout(timer)
          resume(exit)
        })
        return Effect.sync(() => {
          clearTimeout(timer)
          removeObserver()
          fiber.interruptUnsafe()
        })
      }))
  })

const defaultClock = Context.get(Context.empty(), Clock.Clock)

/** The policies of one call: the configured ones with the call's overrides (`undefined` fields are ignored). */
const resolveOptions = (
  options: CallOptions,
  config: TransportConfig["Service"]
): { readonly retry: RetryPolicy; readonly rateLimit: RateLimitPolicy; readonly timeoutMillis: number } | InvalidArgument => {
  let retry = options.retry === undefined ? config.retry : { ...config.retry, ...defined(options.retry) } as RetryPolicy
  const rateLimit = options.rateLimit === undefined
    ? config.rateLimit
    : { ...config.rateLimit, ...defined(options.rateLimit) } as RateLimitPolicy
  let timeoutMillis = options.timeoutMillis ?? config.timeoutMillis
  if (options.timeout !== undefined) {
    const millis = millisOf(options.timeout)
    if (millis === undefined) return new InvalidArgument({ field: "timeout", message: "timeout: Expected a positive, finite duration" })
    timeoutMillis = millis
  }
  if (options.maxRetries !== undefined) {
    const maxRetries: unknown = options.maxRetries
    if (typeof maxRetries !== "number" || !Number.isSafeInteger(maxRetries) || maxRetries < 0) {
      return new InvalidArgument({ field: "maxRetries", message: "maxRetries: Expected an integer >= 0" })
    }
    retry = { ...retry, maxAttempts: maxRetries + 1 }
  }
  return { retry, rateLimit, timeoutMillis }
}

/** Whole milliseconds (rounded up) of a positive, finite duration input, else `undefined`. */
const millisOf = (input: Duration.Input): number | undefined => {
  let millis = Number.NaN
  try {
    const duration = Duration.fromInput(input)
    if (Option.isSome(duration)) millis = Duration.toMillis(duration.value)
  } catch {
    // not a duration input
  }
  return Number.isFinite(millis) && millis > 0 ? Math.ceil(millis) : undefined
}

const defined = <A extends object>(a: A): Partial<A> =>
  Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as Partial<A>

/**
 * A success: its `headers` are the response's (on the lean client, built once
 * from undici's raw header record, see `headersOf`, and shared with an
 * `onResponse` that read them); the result keeps them only, not the response
 * (its body).
 */
const resultOf = (
  value: unknown,
  status: number,
  requestId: string | undefined,
  response: HttpClientResponse.HttpClientResponse
): Result<unknown> => ({ value, status, requestId, headers: response.headers })

const statusOf = (error: AnyError): number | undefined => "status" in error ? error.status : undefined

/** Retried by status (500, 502, 503, 504, whatever the body), and connection failures and timeouts. */
const isTransient = (error: AnyError, status: number | undefined): boolean =>
  error._tag === "TransportFailure" || error._tag === "RequestTimeout" ||
  status === 500 || status === 502 || status === 503 || status === 504

const errorUrl = (error: AnyError): string | undefined => "url" in error ? error.url : undefined

/** The tag of the error an attempt failed with, else `"interrupted"` (or `"defect"`). */
const failureOf = (cause: Cause.Cause<AnyError>): string => {
  const error = Cause.findErrorOption(cause)
  return Option.isSome(error) ? error.value._tag : Cause.hasInterrupts(cause) ? "interrupted" : "defect"
}

const decodeIdentifier = Schema.decodeUnknownResult(Identifier, { reportInput: true })

/**
 * Every path parameter must be an `Identifier` (the rule of the SDK's
 * clients): `""`, `.` and `..` would survive `encodeURIComponent` as empty or
 * dot segments, a `/` sent as `%2F` is turned back into a separator by some
 * proxies, and a control character has no place in an id. A non-string is
 * left to the params schema (also an `InvalidArgument`).
 */
const checkParams = (request: unknown): AnyError | undefined => {
  const params = typeof request === "object" && request !== null && "params" in request
    ? (request as { readonly params: unknown }).params
    : undefined
  if (typeof params !== "object" || params === null) return undefined
  for (const key in params) {
    const value = (params as Record<string, unknown>)[key]
    if (typeof value === "string" && !isIdentifier(value)) {
      const result = decodeIdentifier(value)
      if (isFailure(result)) return fromIssue(result.failure.issue, { field: key })
    }
  }
  return undefined
}

/** An encoding failure: nothing was sent. A value a schema refuses is an argument error. */
const mapBuildError = (error: unknown, method: string, path: string): AnyError => {
  if (Schema.isSchemaError(error)) return fromIssue(error.issue, { field: "request" })
  const reason = (error as Partial<HttpClientError.HttpClientError>).reason
  return new InvalidRequest({ method, path, description: reason?.description ?? reason?._tag ?? String(error) })
}

const mapSendError = (error: unknown, method: string, path: string, url: string): AnyError => {
  const httpError = error as HttpClientError.HttpClientError
  const reason = httpError.reason
  if (reason !== undefined && (reason._tag === "InvalidUrlError" || reason._tag === "EncodeError")) {
    return new InvalidRequest({ method, path, description: reason.description ?? reason._tag })
  }
  return new TransportFailure({ method, url, description: reason?.description ?? reason?._tag ?? String(error) })
}

const mapDecodeError = (error: unknown, ctx: Ctx): AnyError => {
  if (Schema.isSchemaError(error)) {
    return new ResponseDecodeError({ ...ctx, description: error.message })
  }
  const reason = (error as HttpClientError.HttpClientError).reason
  if (reason?._tag === "TransportError") {
    return new TransportFailure({ ...ctx, description: reason.description ?? reason._tag })
  }
  if (reason?._tag === "DecodeError" && reason.description !== "undeclared status code") {
    return new ResponseDecodeError({ ...ctx, description: reason.description ?? "the body is not JSON" })
  }
  return new UnexpectedStatus(ctx)
}

const decodeEnvelope = Schema.decodeUnknownOption(Schema.fromJsonString(ErrorEnvelope))
const decodeOAuth = Schema.decodeUnknownOption(Schema.fromJsonString(OAuthErrorBody))

/**
 * The error of a non-2xx response, decided by its status first: a 429 is a
 * `RateLimitError` with the `Retry-After` delay whatever the body says; other
 * statuses follow the body (envelope, OAuth error, or `MalformedErrorBody`).
 */
const decodeError = (response: HttpClientResponse.HttpClientResponse, ctx: Ctx): Effect.Effect<AnyError, AnyError> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    // read before the body, so that a body that fails to arrive keeps it
    const retryAfterMillis = ctx.status === 429 ? RetryAfter.fromHeaders(response.headers, now) : undefined
    return Effect.map(
      Effect.mapError(response.text, (e): AnyError => new TransportFailure({ ...ctx, description: e.reason.description ?? e.reason._tag })),
      (text): AnyError => {
        const envelope = decodeEnvelope(text)
        if (ctx.status === 429) return rateLimitError(ctx, retryAfterMillis, text, envelope)
        if (Option.isSome(envelope)) return fromEnvelope(envelope.value, ctx)
        const oauth = decodeOAuth(text)
        if (Option.isSome(oauth)) {
          return new OAuthError({
            ...ctx,
            error: oauth.value.error,
            ...(oauth.value.error_description === undefined ? {} : { errorDescription: oauth.value.error_description })
          })
        }
        return new MalformedErrorBody({
          ...ctx,
          description: text.trim().startsWith("{") ? "JSON that is not the error envelope" : "not JSON"
        })
      }
    )
  })

const rateLimitError = (
  ctx: Ctx,
  retryAfterMillis: number | undefined,
  text: string,
  envelope: Option.Option<ErrorEnvelope>
): RateLimitError => {
  const optional = retryAfterMillis === undefined ? {} : { retryAfterMillis }
  if (Option.isSome(envelope)) {
    const error = fromEnvelope(envelope.value, { ...ctx, retryAfterMillis })
    if (error._tag === "RateLimitError") return error
    // another type with status 429: the status decides, the body's fields are kept
    const { _tag, ...fields } = error
    return new RateLimitError({ ...fields, message: error.message, ...optional })
  }
  const oauth = decodeOAuth(text)
  const code = Option.isSome(oauth) ? oauth.value.error : "RATE_LIMITED"
  const detail = Option.isSome(oauth) && oauth.value.error_description !== undefined
    ? oauth.value.error_description
    : "Too many requests"
  return new RateLimitError({
    ...ctx,
    ...optional,
    message: `${ctx.status} ${code}: ${detail}`,
    type: "RATE_LIMIT",
    code,
    title: "Too Many Requests",
    detail,
    resolution: "RETRY_LATER",
    errors: []
  })
}
