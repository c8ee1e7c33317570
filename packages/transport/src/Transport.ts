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
import { Clock, Context, Duration, Effect, Layer, Option, Random, Redacted, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import type { HttpClientError, HttpClientResponse } from "effect/http"
import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { HttpApiClient } from "effect/http-api"
import type { OAuthBadRequest, OAuthUnauthorized } from "@connected-vehicle/schema/Api"
import { OAuthErrorBody } from "@connected-vehicle/schema/OAuth"
import { ErrorEnvelope, fromEnvelope } from "@connected-vehicle/schema/ServiceError"
import type { ServiceError } from "@connected-vehicle/schema/ServiceError"
import { Credentials } from "./Credentials.ts"
import type { RateLimitPolicy, RetryPolicy, Roots } from "./TransportConfig.ts"
import { TransportConfig } from "./TransportConfig.ts"
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
import { parseRetryAfter, withoutCredentials } from "./internal/http.ts"

/**
 * A decoded response with the HTTP context it came with.
 *
 * @since 0.1.0
 */
export interface Result<A> {
  readonly value: A
  readonly status: number
  /** The value of the configured request-id response header, if present. */
  readonly requestId: string | undefined
}

/**
 * Per-call overrides of the configured policies.
 *
 * @since 0.1.0
 */
export interface CallOptions {
  readonly timeoutMillis?: number | undefined
  readonly retry?: { readonly [K in keyof RetryPolicy]?: RetryPolicy[K] | undefined } | undefined
  readonly rateLimit?: { readonly [K in keyof RateLimitPolicy]?: RateLimitPolicy[K] | undefined } | undefined
}

/**
 * The errors of one endpoint: every service error, every transport error,
 * and `OAuthError` for endpoints of the authorization server.
 *
 * @since 0.1.0
 */
export type ErrorOf<Endpoint extends HttpApiEndpoint.ConstraintRequest> =
  | ServiceError
  | TransportError
  | ([Extract<Endpoint["~Error"]["Type"], OAuthBadRequest | OAuthUnauthorized>] extends [never] ? never : OAuthError)

type Part<Key extends string, S extends Schema.Constraint> = [S["Type"]] extends [never] ? {}
  : {} extends S["Type"] ? { readonly [K in Key]?: S["Type"] }
  : { readonly [K in Key]: S["Type"] }

/**
 * The request argument of an endpoint: `params`, `query`, `headers` and
 * `payload` as the contract declares them (a part whose fields are all
 * optional may be left out).
 *
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
 * @since 0.1.0
 */
export type Method<Endpoint extends HttpApiEndpoint.ConstraintRequest> = (
  ...args: {} extends RequestOf<Endpoint> ? [request?: RequestOf<Endpoint>, options?: CallOptions]
    : [request: RequestOf<Endpoint>, options?: CallOptions]
) => Effect.Effect<Result<HttpApiClient.SuccessType<Endpoint["~Success"]>>, ErrorOf<Endpoint>>

/**
 * The client of one group: one {@link Method} per endpoint.
 *
 * @since 0.1.0
 */
export type GroupClient<Groups extends HttpApiGroup.Constraint, Name extends string> = {
  readonly [
    Endpoint in Extract<HttpApiGroup.EndpointsWithIdentifier<Groups, Name>, HttpApiEndpoint.ConstraintRequest> as
      Endpoint["identifier"]
  ]: Method<Endpoint>
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

interface CallState {
  readonly baseUrl: string
  token: Redacted.Redacted<string> | undefined
  url: string | undefined
}

const CurrentCall = Context.Reference<CallState | undefined>("@connected-vehicle/transport/Transport/CurrentCall", {
  defaultValue: () => undefined
})

/**
 * Builds the transport from its configuration and an `HttpClient`
 * (`NodeHttpClient.layerUndici`, `FetchHttpClient.layer`, or a test client).
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
export const layer: Layer.Layer<Transport, never, TransportConfig | HttpClient.HttpClient> = Layer.effect(
  Transport,
  Effect.gen(function*() {
    const config = yield* TransportConfig
    const base = yield* HttpClient.HttpClient
    const httpClient = base.pipe(
      // runs before any transformation of the underlying client: the URL is
      // absolute (the call's root prepended) by the time it sees the request
      HttpClient.mapRequestInputEffect((request) =>
        Effect.map(Effect.service(CurrentCall), (call: CallState | undefined) => {
          let req = HttpClientRequest.acceptJson(request).pipe(HttpClientRequest.setHeader("user-agent", config.userAgent))
          if (call !== undefined) {
            if (!/^https?:/.test(req.url)) req = HttpClientRequest.prependUrl(req, call.baseUrl)
            if (call.token !== undefined && req.headers["authorization"] === undefined) {
              req = HttpClientRequest.bearerToken(req, call.token)
            }
            call.url = withoutCredentials(req.url, req.urlParams)
          }
          return req
        })
      )
    )
    return { config, httpClient: httpClient as HttpClient.HttpClient }
  })
)

const rootOfApi: Record<string, keyof Roots> = {
  vehicle: "base",
  management: "management",
  compatibility: "compatibility",
  authorization: "authorization",
  legacy: "legacy"
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
  options?: { readonly root?: keyof Roots | undefined }
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
  options?: { readonly root?: keyof Roots | undefined }
): Effect.Effect<GroupClient<Groups, Name>, never, Transport> => makeClient(api, group, undefined, options)

const makeClient = <ApiId extends string, Groups extends HttpApiGroup.Constraint, Name extends HttpApiGroup.Identifier<Groups>>(
  api: HttpApi.HttpApi<ApiId, Groups>,
  group: Name,
  credentials: Credentials["Service"] | undefined,
  options?: { readonly root?: keyof Roots | undefined }
): Effect.Effect<GroupClient<Groups, Name>, never, Transport> =>
  Effect.gen(function*() {
    const transport = yield* Transport
    const root = options?.root ?? rootOfApi[api.identifier] ?? "base"
    const baseUrl = transport.config.roots[root]
    // the root is prepended by the transport's pipeline (see `layer`), not by
    // HttpApiClient, so that it comes before the underlying client's own mapping
    const raw = (yield* (HttpApiClient.group(api as any, {
      group,
      httpClient: transport.httpClient
    }) as Effect.Effect<unknown>)) as Record<string, (request: unknown) => Effect.Effect<HttpClientResponse.HttpClientResponse, unknown>>
    const groupDef = (api.groups as Record<string, HttpApiGroup.Constraint>)[group]!
    const out: Record<string, unknown> = {}
    for (const [name, endpoint] of Object.entries(groupDef.endpoints)) {
      const decode = HttpApiClient.decodeResponse(api as any, { group, endpoint: name } as any) as (
        response: HttpClientResponse.HttpClientResponse
      ) => Effect.Effect<unknown, unknown>
      out[name] = makeMethod({
        transport,
        credentials,
        spanName: `connected-vehicle.${group}.${name}`,
        method: (endpoint as unknown as HttpApiEndpoint.Top).method,
        path: (endpoint as unknown as HttpApiEndpoint.Top).path,
        declared: {
          params: (endpoint as unknown as HttpApiEndpoint.Top).params !== undefined,
          query: (endpoint as unknown as HttpApiEndpoint.Top).query !== undefined,
          headers: (endpoint as unknown as HttpApiEndpoint.Top).headers !== undefined
        },
        baseUrl,
        send: raw[name]!,
        decode
      })
    }
    return out as GroupClient<Groups, Name>
  })

type AnyError = ServiceError | TransportError | OAuthError

const makeMethod = (spec: {
  readonly transport: Transport["Service"]
  readonly credentials: Credentials["Service"] | undefined
  readonly spanName: string
  readonly method: string
  readonly path: string
  readonly declared: { readonly params: boolean; readonly query: boolean; readonly headers: boolean }
  readonly baseUrl: string
  readonly send: (request: unknown) => Effect.Effect<HttpClientResponse.HttpClientResponse, unknown>
  readonly decode: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<unknown, unknown>
}) =>
(input: unknown, options?: CallOptions): Effect.Effect<Result<unknown>, AnyError> => {
  const given = (input ?? {}) as Record<string, unknown>
  const request = {
    ...given,
    ...(spec.declared.params && given.params === undefined ? { params: {} } : {}),
    ...(spec.declared.query && given.query === undefined ? { query: {} } : {}),
    ...(spec.declared.headers && given.headers === undefined ? { headers: {} } : {}),
    responseMode: "response-only"
  }
  const { config } = spec.transport
  const retry = { ...config.retry, ...defined(options?.retry) } as RetryPolicy
  const rateLimit = { ...config.rateLimit, ...defined(options?.rateLimit) } as RateLimitPolicy
  const timeoutMillis = options?.timeoutMillis ?? config.timeoutMillis
  const idempotent = spec.method === "GET" || spec.method === "HEAD" || spec.method === "OPTIONS"
  const retriable = idempotent || retry.retryNonIdempotent
  const templateUrl = spec.baseUrl.replace(/\/+$/, "") + spec.path

  const invalid = checkParams(request, spec.method, spec.path)
  if (invalid !== undefined) return Effect.fail(invalid)

  const attempt = (token: Redacted.Redacted<string> | undefined): Effect.Effect<Result<unknown>, AnyError> => {
    const state: CallState = { baseUrl: spec.baseUrl, token, url: undefined }
    const url = () => state.url ?? templateUrl
    return Effect.gen(function*() {
      const response = yield* spec.send(request).pipe(
        Effect.mapError((error): AnyError => mapSendError(error, spec.method, url(), spec.path))
      )
      const requestId = response.headers[config.requestIdHeader] ?? undefined
      const ctx = { status: response.status, method: spec.method, url: url(), ...(requestId ? { requestId } : {}) }
      if (response.status >= 400) {
        return yield* Effect.fail(yield* decodeError(response, ctx))
      }
      const value = yield* spec.decode(response).pipe(
        Effect.mapError((error): AnyError => mapDecodeError(error, ctx))
      )
      yield* Effect.annotateCurrentSpan({ "http.response.status_code": response.status, "request.id": requestId ?? "" })
      return { value, status: response.status, requestId }
    }).pipe(
      Effect.provideService(CurrentCall, state),
      Effect.timeoutOrElse({
        duration: Duration.millis(timeoutMillis),
        orElse: () => Effect.fail(new RequestTimeout({ method: spec.method, url: url(), timeoutMillis }))
      })
    )
  }

  const withCredentials: Effect.Effect<Result<unknown>, AnyError> = spec.credentials === undefined
    ? attempt(undefined)
    : Effect.gen(function*() {
      const credentials = spec.credentials!
      const token = yield* credentials.token
      return yield* attempt(token).pipe(
        Effect.catchIf(
          (e): e is ServiceError => e._tag === "AuthenticationError" && e.status === 401,
          (e) =>
            Effect.gen(function*() {
              const refreshed = yield* credentials.refresh(token)
              if (!refreshed) return yield* Effect.fail(e)
              yield* Effect.logDebug("replaying after 401 with a refreshed token")
              return yield* attempt(yield* credentials.token)
            })
        )
      )
    }) as Effect.Effect<Result<unknown>, AnyError | CredentialsError>

  const loop = (n: number, startedAt: number): Effect.Effect<Result<unknown>, AnyError> =>
    Effect.catch(withCredentials, (error) =>
      Effect.gen(function*() {
        const delay = yield* retryDelay(error, n)
        const now = yield* Clock.currentTimeMillis
        if (delay === undefined || n >= retry.maxAttempts || now - startedAt + delay > retry.maxElapsedMillis) {
          return yield* Effect.fail(error)
        }
        yield* Effect.annotateCurrentSpan({ "retry.count": n })
        yield* Effect.logDebug("retrying").pipe(
          Effect.annotateLogs({ attempt: n, delayMillis: delay, error: error._tag, url: urlOf(error) ?? templateUrl })
        )
        yield* Effect.sleep(Duration.millis(delay))
        return yield* loop(n + 1, startedAt)
      }))

  const retryDelay = (error: AnyError, n: number): Effect.Effect<number | undefined> => {
    if (error._tag === "RateLimitError") {
      const after = error.retryAfterMillis
      return Effect.succeed(
        rateLimit.wait && retriable && after !== undefined && after <= rateLimit.maxWaitMillis ? after : undefined
      )
    }
    if (!retriable || !isTransient(error)) return Effect.succeed(undefined)
    const exp = Math.min(retry.maxDelayMillis, retry.initialDelayMillis * Math.pow(retry.factor, n - 1))
    // "equal jitter": half fixed, half random, so delays never collapse to zero
    return Effect.map(Random.next, (r) => Math.round(exp / 2 + (exp / 2) * r))
  }

  return Effect.flatMap(Clock.currentTimeMillis, (start) => loop(1, start)).pipe(
    Effect.withSpan(spec.spanName, {
      kind: "client",
      attributes: { "http.request.method": spec.method, "url.template": templateUrl }
    })
  )
}

const defined = <A extends object>(a: A | undefined): Partial<A> =>
  a === undefined ? {} : Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as Partial<A>

const isTransient = (error: AnyError): boolean => {
  switch (error._tag) {
    case "ServerError":
    case "TransportFailure":
    case "RequestTimeout":
      return true
    case "MalformedErrorBody":
    case "UnexpectedStatus":
      return error.status === 502 || error.status === 503 || error.status === 504
    default:
      return false
  }
}

const urlOf = (error: AnyError): string | undefined => "url" in error ? error.url : undefined

const checkParams = (request: unknown, method: string, path: string): InvalidRequest | undefined => {
  const params = typeof request === "object" && request !== null && "params" in request
    ? (request as { readonly params: unknown }).params
    : undefined
  if (typeof params !== "object" || params === null) return undefined
  for (const [key, value] of Object.entries(params)) {
    if (value === "." || value === ".." || value === "") {
      return new InvalidRequest({ method, path, description: `path parameter ${key} must not be empty, "." or ".."` })
    }
  }
  return undefined
}

const mapSendError = (error: unknown, method: string, url: string, path: string): AnyError => {
  if (Schema.isSchemaError(error)) {
    return new InvalidRequest({ method, path, description: error.message })
  }
  const httpError = error as HttpClientError.HttpClientError
  const reason = httpError.reason
  if (reason !== undefined && (reason._tag === "InvalidUrlError" || reason._tag === "EncodeError")) {
    return new InvalidRequest({ method, path, description: reason.description ?? reason._tag })
  }
  return new TransportFailure({ method, url, description: reason?.description ?? reason?._tag ?? String(error) })
}

const mapDecodeError = (
  error: unknown,
  ctx: { readonly status: number; readonly method: string; readonly url: string; readonly requestId?: string }
): AnyError => {
  if (Schema.isSchemaError(error)) {
    return new ResponseDecodeError({ ...ctx, description: error.message })
  }
  const reason = (error as HttpClientError.HttpClientError).reason
  if (reason?._tag === "TransportError") {
    return new TransportFailure({ method: ctx.method, url: ctx.url, description: reason.description ?? reason._tag })
  }
  return new UnexpectedStatus(ctx)
}

const decodeEnvelope = Schema.decodeUnknownOption(Schema.fromJsonString(ErrorEnvelope))
const decodeOAuth = Schema.decodeUnknownOption(Schema.fromJsonString(OAuthErrorBody))

const decodeError = (
  response: HttpClientResponse.HttpClientResponse,
  ctx: { readonly status: number; readonly method: string; readonly url: string; readonly requestId?: string }
): Effect.Effect<AnyError, AnyError> =>
  Effect.gen(function*() {
    const text = yield* response.text.pipe(
      Effect.mapError((e): AnyError =>
        new TransportFailure({ method: ctx.method, url: ctx.url, description: e.reason.description ?? e.reason._tag })
      )
    )
    const envelope = decodeEnvelope(text)
    if (Option.isSome(envelope)) {
      const retryAfter = response.headers["retry-after"]
      const retryAfterMillis = retryAfter === undefined ? undefined : parseRetryAfter(retryAfter, yield* Clock.currentTimeMillis)
      return fromEnvelope(envelope.value, { ...ctx, retryAfterMillis })
    }
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
  })
