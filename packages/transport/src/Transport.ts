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
import { Context, Effect, Layer } from "effect"
import type { Duration, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import type { Headers, HttpClientResponse } from "effect/http"
import type { HttpApi, HttpApiClient, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import type { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { Credentials } from "./Credentials.ts"
import type { RateLimitOptions, RetryOptions, Roots } from "./TransportConfig.ts"
import * as TransportConfigModule from "./TransportConfig.ts"
import { TransportConfig } from "./TransportConfig.ts"
import type { ConnectedVehicleError } from "./ConnectedVehicleError.ts"
import type * as Retry from "./Retry.ts"
import * as Client from "./internal/client.ts"
import * as ConfigurationError from "./ConfigurationError.ts"

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
 *   return [result.value.distance, result.status, result.requestId, result.headers["sc-data-age"], result.request.url]
 * })
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Result<A> {
  readonly value: A
  /** The request as the transport built it from the call's arguments (before a `transformClient`), without a credential, an `authorization` header or a body. */
  readonly request: HttpClientRequest.HttpClientRequest
  readonly status: number
  /** The request id: the first of `TransportConfig.requestIdHeaders` present (`sc-request-id`, else `x-request-id`, by default). */
  readonly requestId: string | undefined
  /** The response headers (lower-case names). */
  readonly headers: Headers.Headers
}

/**
 * Per-call overrides of the configured policies: the same names as the
 * Promise client's options (`timeout`, `maxRetries`), plus `retry` and
 * `rateLimit` for the rest of the policies, and `retryWhile` / `retryWait`
 * for a call's own say over its retries (see `Retry`).
 *
 * A `timeout` that is not a positive, finite duration, or a `maxRetries` that
 * is not an integer >= 0, or a `retry` / `rateLimit` override that is not
 * valid, or a hook that is not a function, fails the call with
 * `InvalidArgument` naming it before anything is sent.
 *
 * @example
 * ```ts
 * import type { CallOptions } from "@connected-vehicle/transport/Transport"
 *
 * const patient: CallOptions = { timeout: "5 seconds", maxRetries: 5, rateLimit: { wait: true } }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  /** Timeout of each attempt (a `Duration` input such as `"5 seconds"`, or milliseconds); default `TransportConfig.timeout`. */
  readonly timeout?: Duration.Input | undefined
  /** Retries after the first attempt (0: none); wins over `retry.maxAttempts`. */
  readonly maxRetries?: number | undefined
  /** The retry policy; `retry.maxAttempts` counts the first attempt (`maxRetries` + 1), prefer `maxRetries`. */
  readonly retry?: RetryOptions | undefined
  readonly rateLimit?: RateLimitOptions | undefined
  /**
   * Runs on every response of this call (retried and failed ones too), like
   * the client's own `onResponse` (see `ClientOptions`) and after it; a
   * failure, defect or throw of it is ignored.
   */
  readonly onResponse?: ((response: HttpClientResponse.HttpClientResponse) => Effect.Effect<void>) | undefined
  /** Whether each retry the policy would make is made (`Retry.While`); default: every one. */
  readonly retryWhile?: Retry.While | undefined
  /** Runs each wait between two attempts (`Retry.Wait`); default: the wait itself. */
  readonly retryWait?: Retry.Wait | undefined
}

/**
 * The errors of one endpoint: `InvalidArgument` for a request argument
 * refused before sending, else a `ConnectedVehicleError` whose `reason` says
 * what happened (what the service answered, a timeout, a connection failure,
 * a credential that could not be had, an OAuth error of the authorization
 * server...). The parameters are kept for the callers that name them.
 *
 * @example
 * ```ts
 * import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
 * import type { SignalsGroup } from "@connected-vehicle/schema/Api"
 * import type { ErrorOf } from "@connected-vehicle/transport/Transport"
 *
 * type Get = HttpApiEndpoint.WithIdentifier<HttpApiGroup.Endpoints<SignalsGroup>, "get">
 * type GetSignalError = ErrorOf<Get> // InvalidArgument | ConnectedVehicleError
 * ```
 * @since 0.1.0
 * @category type-level
 */
export type ErrorOf<_Endpoint extends HttpApiEndpoint.ConstraintRequest = never, _Authenticated extends boolean = true> =
  | InvalidArgument
  | ConnectedVehicleError

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
 * @category type-level
 */
export type RequestOf<Endpoint extends HttpApiEndpoint.ConstraintRequest> =
  & Part<"params", HttpApiEndpoint.Params<Endpoint>>
  & Part<"query", HttpApiEndpoint.Query<Endpoint>>
  & Part<"headers", HttpApiEndpoint.Headers<Endpoint>>
  & Part<"payload", HttpApiEndpoint.Payload<Endpoint>>

/**
 * One client function.
 *
 * @example
 * ```ts
 * import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
 * import type { LegacyGroup } from "@connected-vehicle/schema/Api"
 * import type { Method } from "@connected-vehicle/transport/Transport"
 *
 * type Odometer = Method<HttpApiEndpoint.WithIdentifier<HttpApiGroup.Endpoints<typeof LegacyGroup>, "odometer">>
 * ```
 * @since 0.1.0
 * @category models
 */
export type Method<Endpoint extends HttpApiEndpoint.ConstraintRequest, Authenticated extends boolean = true> = (
  ...args: {} extends RequestOf<Endpoint> ? [request?: RequestOf<Endpoint>, options?: CallOptions]
    : [request: RequestOf<Endpoint>, options?: CallOptions]
) => Effect.Effect<Result<HttpApiClient.SuccessType<HttpApiEndpoint.Success<Endpoint>>>, ErrorOf<Endpoint, Authenticated>>

/**
 * The client of one group: one {@link Method} per endpoint.
 *
 * @example
 * ```ts
 * import type { LegacyGroup } from "@connected-vehicle/schema/Api"
 * import type { GroupClient } from "@connected-vehicle/transport/Transport"
 *
 * type LegacyClient = GroupClient<typeof LegacyGroup, "legacy">
 * ```
 * @since 0.1.0
 * @category models
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
 * const timeout = Effect.map(Effect.service(Transport), (t) => t.config.timeout)
 * ```
 * @since 0.1.0
 * @category services
 */
export class Transport extends Context.Service<Transport, {
  readonly config: TransportConfig["Service"]
  readonly httpClient: HttpClient.HttpClient
  /** See {@link Options} `admit`. */
  readonly admit?: Admit | undefined
}>()("@connected-vehicle/transport/Transport") {}

/**
 * Waits until a request may be sent (a shared rate limit, a concurrency
 * gate...), or fails the call: see {@link Options} `admit`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Admit } from "@connected-vehicle/transport/Transport"
 *
 * const admit: Admit = (request) => Effect.logDebug(`admitting ${request.method} ${request.url}`)
 * ```
 * @since 0.2.0
 * @category models
 */
export type Admit = (request: HttpClientRequest.HttpClientRequest) => Effect.Effect<void, ConnectedVehicleError>

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
 * @category models
 */
export interface Options {
  /**
   * Transforms the transport's `HttpClient` (after its own request mapping:
   * root, accept, User-Agent and bearer are set when a `mapRequest` of the
   * transformed client runs), like the `transformClient` option of Effect's
   * AI provider clients: add headers, a proxy, logging, a custom retry...
   */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
  /**
   * Runs before each attempt of a call with a credential ({@link client}:
   * retries and the replay after a 401 included; not {@link publicClient}'s),
   * with the call's request, after the credential is read and outside the
   * attempt's timeout: the request is sent as soon as `admit` returns (a
   * slot of a shared rate limit is used when it is taken, however long the
   * token took), with the credential read again if it comes at once (25 ms:
   * a token renewed during the wait), else the one read before; the wait
   * does not eat into the attempt's timeout. The
   * wait is bounded by what is left of the call's budget (`retry.maxElapsed`),
   * then the call fails with `Timeout`; a failure of `admit` is the call's
   * error.
   */
  readonly admit?: Admit | undefined
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
 * @category constructors
 */
export const make = (
  options?: Options
): Effect.Effect<Transport["Service"], never, TransportConfig | HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const config = yield* TransportConfig
    const base = yield* HttpClient.HttpClient
    const pipeline = Client.pipeline(base, config)
    const httpClient = options?.transformClient === undefined ? pipeline : options.transformClient(pipeline)
    return options?.admit === undefined ? { config, httpClient } : { config, httpClient, admit: options.admit }
  })

/**
 * Builds the transport from its configuration and an `HttpClient` (on Node,
 * `UndiciHttpClient.layer()` of this package is the fastest; `FetchHttpClient.layer`
 * elsewhere).
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
 * @category layers
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
 * @category layers
 */
export const layerWith = (options: Options): Layer.Layer<Transport, never, TransportConfig | HttpClient.HttpClient> =>
  Layer.effect(Transport, make(options))

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
 * @category models
 */
export interface ClientOptions {
  /** The root the client's requests go to (default: the API's, `VehicleApi` → base, `ManagementApi` → management...). */
  readonly root?: keyof Roots | undefined
  /**
   * Runs on every response of the client's calls (retried and failed ones
   * too, whatever the status) when its head has arrived, before its body is
   * read, inside the attempt (its timeout covers it), on every `HttpClient`:
   * to watch headers (a deprecation notice, rate-limit counters...). A
   * failure or defect of the effect, or a throw of the function, is ignored.
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
 * @category constructors
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
 * @category constructors
 */
export const publicClient = <ApiId extends string, Groups extends HttpApiGroup.Constraint, const Name extends HttpApiGroup.Identifier<Groups>>(
  api: HttpApi.HttpApi<ApiId, Groups>,
  group: Name,
  options?: ClientOptions
): Effect.Effect<GroupClient<Groups, Name, false>, never, Transport> =>
  makeClient(api, group, undefined, options) as Effect.Effect<GroupClient<Groups, Name, false>, never, Transport>

/**
 * Options of {@link layerFrom} and {@link layerConfig}: {@link Options}, and
 * the `HttpClient` layer to build the transport on (without it, the layer
 * needs an `HttpClient`).
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "effect/http"
 * import type { LayerOptions } from "@connected-vehicle/transport/Transport"
 *
 * const options: LayerOptions = { httpClient: FetchHttpClient.layer }
 * ```
 * @since 0.2.0
 * @category models
 */
export interface LayerOptions extends Options {
  readonly httpClient?: Layer.Layer<HttpClient.HttpClient> | undefined
}

/**
 * The transport and its configuration from a `TransportConfig` layer, on
 * `options.httpClient` (else on the `HttpClient` the layer is given): the one
 * place the SDK's layers assemble it. The transport names no client of its
 * own: the SDK's convenience layers give `UndiciHttpClient.layer()` unless
 * told otherwise.
 *
 * @example
 * ```ts
 * import * as Transport from "@connected-vehicle/transport/Transport"
 * import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
 * import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
 *
 * const TransportLive = Transport.layerFrom(TransportConfig.layerOrigin("http://127.0.0.1:4010"), {
 *   httpClient: UndiciHttpClient.layer()
 * })
 * ```
 * @since 0.2.0
 * @category layers
 */
export const layerFrom: {
  <E, R>(
    config: Layer.Layer<TransportConfig, E, R>,
    options: LayerOptions & { readonly httpClient: Layer.Layer<HttpClient.HttpClient> }
  ): Layer.Layer<Transport | TransportConfig, E, R>
  <E, R>(config: Layer.Layer<TransportConfig, E, R>, options?: LayerOptions): Layer.Layer<Transport | TransportConfig, E, R | HttpClient.HttpClient>
} = <E, R>(config: Layer.Layer<TransportConfig, E, R>, options?: LayerOptions): Layer.Layer<Transport | TransportConfig, E, R | HttpClient.HttpClient> => {
  const built = Layer.effect(Transport, make(options)).pipe(Layer.provideMerge(config))
  return options?.httpClient === undefined ? built : Layer.provide(built, options.httpClient)
}

/**
 * {@link layerFrom} the environment (`TransportConfig.layerConfig`).
 *
 * @example
 * ```ts
 * import * as Transport from "@connected-vehicle/transport/Transport"
 * import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
 *
 * // CONNECTED_VEHICLE_ORIGIN=http://127.0.0.1:4010 node app.ts
 * const TransportLive = Transport.layerConfig({ httpClient: UndiciHttpClient.layer() })
 * ```
 * @since 0.2.0
 * @category layers
 */
export function layerConfig(
  options: LayerOptions & { readonly httpClient: Layer.Layer<HttpClient.HttpClient> }
): Layer.Layer<Transport | TransportConfig, ConfigurationError.ConfigurationError>
export function layerConfig(
  options?: LayerOptions
): Layer.Layer<Transport | TransportConfig, ConfigurationError.ConfigurationError, HttpClient.HttpClient>
export function layerConfig(
  options?: LayerOptions
): Layer.Layer<Transport | TransportConfig, ConfigurationError.ConfigurationError, HttpClient.HttpClient> {
  return layerFrom(TransportConfigModule.layerConfig, options)
}

const makeClient = <ApiId extends string, Groups extends HttpApiGroup.Constraint, Name extends HttpApiGroup.Identifier<Groups>>(
  api: HttpApi.HttpApi<ApiId, Groups>,
  group: Name,
  credentials: Credentials["Service"] | undefined,
  options?: ClientOptions
): Effect.Effect<GroupClient<Groups, Name>, never, Transport> =>
  Effect.flatMap(Effect.service(Transport), (transport) =>
    Client.make(api as any, group, {
      config: transport.config,
      httpClient: transport.httpClient,
      admit: transport.admit,
      credentials,
      root: options?.root,
      onResponse: options?.onResponse
    }) as Effect.Effect<any>)
