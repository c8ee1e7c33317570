/**
 * The HTTP application: the `ServiceApi` routes (built by `HttpApiBuilder`),
 * `/openapi.json` and `/docs`, wrapped in the simulator's own middleware:
 * request log, latency and fault injection, bearer-token check, and the
 * mapping of every failure to the section 7 envelope (or the OAuth body under
 * `/oauth`).
 *
 * @since 0.1.0
 */
import { completeDocument, ServiceApi, withPathServers } from "@connected-vehicle/schema/Api"
import { ByteSize, Cause, Duration, Effect, Layer } from "effect"
import type { Scope } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServer, HttpServerRequest } from "effect/http"
import type { HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiScalar, OpenApi } from "effect/http-api"
import { CurrentGrant, CurrentRequestId, Env, MAX_BATCH_REQUESTS } from "./Env.ts"
import { HandlersLive } from "./Handlers.ts"
import * as credential from "./internal/credential.ts"
import * as faults from "./internal/faults.ts"
import { duration } from "./internal/options.ts"
import * as headers from "./internal/headers.ts"
import * as limits from "./internal/limits.ts"
import * as middleware from "./internal/middleware.ts"
import * as paths from "./internal/paths.ts"
import { failureResponse, normalise, problemResponse } from "./internal/responses.ts"
import type { Fault, State } from "./State.ts"
import type { RetireLegacy } from "./Sunset.ts"

/**
 * Most paths one legacy batch may request (see `Env`).
 *
 * @example
 * ```ts
 * import { MAX_BATCH_REQUESTS } from "@connected-vehicle/simulator/App"
 *
 * const paths = ["/odometer", "/location", "/vin"]
 * const fitsOneBatch = paths.length <= MAX_BATCH_REQUESTS
 * ```
 * @since 0.1.0
 * @category constants
 */
export { MAX_BATCH_REQUESTS }

/**
 * The control header that injects a fault into one request.
 *
 * @example
 * ```ts
 * import { FAULT_HEADER } from "@connected-vehicle/simulator/App"
 *
 * const headers = { [FAULT_HEADER]: "status=503;retry-after=2" }
 * ```
 * @since 0.1.0
 * @category constants
 */
export const FAULT_HEADER = headers.FAULT_HEADER

/**
 * With {@link FAULT_HEADER}, names a run: a `times=N` fault applies to the first
 * N requests carrying this key (and the same fault header), later ones pass.
 *
 * @example
 * ```ts
 * import { FAULT_HEADER, FAULT_KEY_HEADER } from "@connected-vehicle/simulator/App"
 *
 * // only the first two requests of the run "flaky-list" answer 500
 * const headers = { [FAULT_HEADER]: "500;times=2", [FAULT_KEY_HEADER]: "flaky-list" }
 * ```
 * @since 0.1.0
 * @category constants
 */
export const FAULT_KEY_HEADER = headers.FAULT_KEY_HEADER

/**
 * The header every webhook delivery of the simulator carries (value `1`). The
 * control routes (`/_simulator/...`) answer a request with it `403`, changing
 * nothing: a webhook whose callback names them
 * (`http://localhost:<port>/_simulator/reset`, however the host is written)
 * fails its `VERIFY` instead of resetting the simulator.
 *
 * @example
 * ```ts
 * import { DELIVERY_HEADER } from "@connected-vehicle/simulator/App"
 *
 * const fromSimulator = (headers: Record<string, string | undefined>) => headers[DELIVERY_HEADER] !== undefined
 * ```
 * @since 0.3.0
 * @category constants
 */
export const DELIVERY_HEADER = headers.DELIVERY_HEADER

/**
 * The request id header: echoed when the request carries a usable one
 * (1..128 visible ASCII characters), else generated (`req-<seed>-<n>`).
 *
 * @example
 * ```ts
 * import { REQUEST_ID_HEADER } from "@connected-vehicle/simulator/App"
 *
 * const headers = { [REQUEST_ID_HEADER]: "trace-0001" }
 * ```
 * @since 0.1.0
 * @category constants
 */
export const REQUEST_ID_HEADER = headers.REQUEST_ID_HEADER

/**
 * Largest request body read, in bytes (1 MiB); a larger one is 413.
 *
 * @example
 * ```ts
 * import { MAX_BODY_BYTES } from "@connected-vehicle/simulator/App"
 *
 * const tooLarge = (body: Uint8Array) => body.byteLength > MAX_BODY_BYTES // answered 413
 * ```
 * @since 0.1.0
 * @category constants
 */
export const MAX_BODY_BYTES: number = headers.MAX_BODY_BYTES

/**
 * Marks a response the in-memory client must turn into a dropped connection.
 *
 * @internal
 * @example
 * ```ts
 * import { DROP_MARKER } from "@connected-vehicle/simulator/App"
 *
 * const isDropped = (headers: Readonly<Record<string, string>>) => DROP_MARKER in headers
 * ```
 * @since 0.1.0
 * @category constants
 */
export const DROP_MARKER = headers.DROP_MARKER

/**
 * A fault header parsed: the fault and how many requests of a keyed run get it.
 *
 * @example
 * ```ts
 * import { parseFaultHeader } from "@connected-vehicle/simulator/App"
 * import type { ParsedFault } from "@connected-vehicle/simulator/App"
 *
 * const parsed: ParsedFault | string = parseFaultHeader("delay=250;times=3")
 * ```
 * @since 0.1.0
 * @category models
 */
export interface ParsedFault {
  readonly fault: Fault
  readonly times: number | undefined
}

/**
 * Parses the control header: `500`, `status=429;retry-after=2`, `delay=250`,
 * `stall`, `drop`, `malformed-json`, each optionally followed by `;times=N`
 * (used with {@link FAULT_KEY_HEADER}). `retry-after` is delta-seconds or an
 * HTTP-date. Returns the reason as a string when the value is not valid.
 *
 * @example
 * ```ts
 * import { parseFaultHeader } from "@connected-vehicle/simulator/App"
 *
 * parseFaultHeader("status=500;times=2") // { fault: { _tag: "Status", status: 500 }, times: 2 }
 * ```
 * @since 0.1.0
 * @category parsing
 */
export const parseFaultHeader: (value: string) => ParsedFault | string = faults.parseFaultHeader

/**
 * The path the router matches: before `?`, `;` or `#`, percent-decoded,
 * duplicate and trailing slashes removed, lower case (the router of
 * `effect/http` is case-insensitive). Every path decision of the middleware
 * (credential, root, control routes, fault rules) is made on this form, so no
 * spelling of a path reaches a handler without the check its route needs.
 *
 * @example
 * ```ts
 * import { routePath } from "@connected-vehicle/simulator/App"
 *
 * routePath("/v3/vehicles/abc/signals?page=2") // "/v3/vehicles/abc/signals"
 * ```
 * @since 0.1.0
 * @category parsing
 */
export const routePath: (url: string) => string = paths.routePath

/**
 * The request id of a request: its own `x-request-id` when that is 1..128
 * visible ASCII characters, else the next generated one (`req-<seed>-<n>`).
 *
 * @example
 * ```ts
 * import { requestIdFor } from "@connected-vehicle/simulator/App"
 * import { State } from "@connected-vehicle/simulator/State"
 *
 * const state = new State({ now: () => 0, seed: 7, failureRate: 0 })
 * requestIdFor("trace-1", state) // "trace-1"
 * requestIdFor(undefined, state) // "req-7-1"
 * ```
 * @since 0.1.0
 * @category utils
 */
export const requestIdFor: (incoming: string | undefined, state: State) => string = headers.requestIdFor

/**
 * Whether a request's own `x-request-id` is echoed (1..128 visible ASCII characters).
 *
 * @internal
 * @example
 * ```ts
 * import { isUsableRequestId } from "@connected-vehicle/simulator/App"
 *
 * isUsableRequestId("trace-0001") // true
 * isUsableRequestId("") // false
 * ```
 * @since 0.1.0
 * @category utils
 */
export const isUsableRequestId: (incoming: string | undefined) => incoming is string = headers.isUsableRequestId

/**
 * Wraps the routed application with the simulator's middleware. A `latency`
 * that is not a non-negative, finite `Duration` input throws an
 * `InvalidArgument` naming it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpServerResponse } from "effect/http"
 * import { wrap } from "@connected-vehicle/simulator/App"
 *
 * const app = wrap(Effect.succeed(HttpServerResponse.text("ok")), { latency: "50 millis" })
 * ```
 * @since 0.1.0
 * @category middleware
 */
export const wrap = <R>(
  routed: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>,
  options: {
    /** Added to every request (a `Duration` input; default 0). */
    readonly latency?: Duration.Input | undefined
    readonly allow?: ((path: string) => boolean) | undefined
    /** The deprecated v2.0 endpoints answer 410 Gone (see `Sunset`). */
    readonly retireLegacy?: RetireLegacy | undefined
  }
): Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  Exclude<R, CurrentGrant | CurrentRequestId> | Env | HttpServerRequest.HttpServerRequest
> => {
  const latency = duration("latency", options.latency, Duration.zero)
  const delayed = Duration.isZero(latency) ? undefined : Effect.sleep(latency)
  return Effect.gen(function*() {
    const x = middleware.exchangeOf(yield* Env, yield* HttpServerRequest.HttpServerRequest)
    if (middleware.isControlPath(x.path)) return yield* middleware.controlAnswer(x)
    const respond = middleware.responder(x)
    const early = middleware.earlyAnswer(x, options)
    if (early !== undefined) return yield* respond(early)
    if (delayed !== undefined) yield* delayed
    const fault = middleware.chooseFault(x)
    if (typeof fault === "string") return yield* respond(problemResponse(x.oauth, 400, fault))
    if (fault !== undefined) {
      const answered = yield* middleware.applyFault(x, fault, respond)
      if (answered !== undefined) return answered
    }
    const bearer = middleware.bearerGrant(x, paths.needsBearer(x.path))
    if (bearer._tag === "Refused") return yield* respond(bearer.response)
    const limited = limits.admitRequest(x.env, x.request.method, x.path, bearer.grant !== undefined)
    if (limited !== undefined) return yield* respond(limits.limitedResponse(limited))
    // 401, then 403, then 400: the token's kind and permission before the request is read
    const denied = credential.credentialProblem(x.request.method, x.path, bearer.grant)
    if (denied !== undefined) return yield* respond(problemResponse(x.oauth, 403, denied))
    const problem = paths.pathProblem(x.url) ?? paths.queryProblem(x.request.method, x.path, x.url)
    if (problem !== undefined) return yield* respond(problemResponse(x.oauth, 400, problem))
    const request = x.request
    const response = yield* routed.pipe(
      Effect.provideService(CurrentGrant, bearer.grant),
      Effect.provideService(CurrentRequestId, x.requestId),
      Effect.provideService(HttpServerRequest.HttpServerRequest, request),
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(MAX_BODY_BYTES)),
      Effect.map((response) => normalise(response, x.path, request.method)),
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : failureResponse(cause, request, x.path, x.env)
      )
    ) as Effect.Effect<HttpServerResponse.HttpServerResponse>
    return yield* respond(fault?._tag === "MalformedJson" ? faults.truncate(response) : response)
  }) as any
}

/**
 * The routes of the whole service plus `/openapi.json` and `/docs`.
 *
 * @example
 * ```ts
 * import { HttpRouter } from "effect/http"
 * import { RoutesLive } from "@connected-vehicle/simulator/App"
 *
 * const routed = HttpRouter.toHttpEffect(RoutesLive) // the unwrapped application (see wrap)
 * ```
 * @since 0.1.0
 * @category layers
 */
export const RoutesLive = Layer.mergeAll(
  HttpApiBuilder.layer(ServiceApi, { openapiPath: "/openapi.json" }),
  HttpApiScalar.layer(ServiceApi, { path: "/docs" })
).pipe(
  Layer.provide(HandlersLive),
  Layer.provide(HttpServer.layerServices)
)

/** The routes with the roots on separate origins: each path of the document names its root's (`servers`). */
const routesOnOrigins = (origins: Readonly<Record<Root, string>>) => {
  const serverOf = (path: string) => {
    const root = rootNames.find((root) => paths.inRoot(root)(path))
    return root === undefined ? undefined : origins[root]
  }
  const api = ServiceApi.annotateMerge(OpenApi.annotations({
    transform: (spec) => withPathServers(serverOf)(completeDocument(spec))
  }))
  return Layer.mergeAll(
    HttpApiBuilder.layer(api, { openapiPath: "/openapi.json" }),
    HttpApiScalar.layer(api, { path: "/docs" })
  ).pipe(
    Layer.provide(HandlersLive),
    Layer.provide(HttpServer.layerServices)
  )
}

const rootNames: ReadonlyArray<Root> = ["vehicle", "management", "compatibility", "authorization", "legacy"]

/**
 * Builds the wrapped application in the current scope. `origins`, for the
 * roots on separate origins: `/openapi.json` and `/docs` name each path's
 * root origin (OpenAPI 3.1 path-level `servers`, since 0.3.0); without it
 * the document names none (one origin serves every path).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { makeApp } from "@connected-vehicle/simulator/App"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const app = yield* makeApp({ latency: "10 millis", retireLegacy: true })
 *   const onRoots = yield* makeApp({
 *     origins: {
 *       vehicle: "http://127.0.0.1:4011",
 *       management: "http://127.0.0.1:4012",
 *       compatibility: "http://127.0.0.1:4013",
 *       authorization: "http://127.0.0.1:4014",
 *       legacy: "http://127.0.0.1:4015"
 *     }
 *   })
 * }))
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const makeApp = (options: {
  readonly latency?: Duration.Input | undefined
  readonly allow?: ((path: string) => boolean) | undefined
  readonly retireLegacy?: RetireLegacy | undefined
  readonly origins?: Readonly<Record<Root, string>> | undefined
}) =>
  Effect.gen(function*() {
    // find-my-way refuses a path parameter over 100 characters (a 404 no handler answers);
    // the request line is bounded by Node's header limit (431) instead, so every id reaches its handler
    const routes = options.origins === undefined ? RoutesLive : routesOnOrigins(options.origins)
    const routed = yield* HttpRouter.toHttpEffect(routes).pipe(
      Effect.provideService(HttpRouter.RouterConfig, { maxParamLength: Number.MAX_SAFE_INTEGER })
    )
    return wrap(routed, options)
  })

/**
 * The roots of the spec, each servable on its own port.
 *
 * @example
 * ```ts
 * import type { Root } from "@connected-vehicle/simulator/App"
 *
 * const roots: ReadonlyArray<Root> = ["vehicle", "management", "authorization"]
 * ```
 * @since 0.1.0
 * @category models
 */
export type Root = "vehicle" | "management" | "compatibility" | "authorization" | "legacy"

/**
 * Whether a path belongs to a root (`/openapi.json` and `/docs` belong to all).
 *
 * @example
 * ```ts
 * import { inRoot } from "@connected-vehicle/simulator/App"
 *
 * const isManagement = inRoot("management")
 * isManagement("/v3/webhooks") // true
 * ```
 * @since 0.1.0
 * @category utils
 */
export const inRoot: (root: Root) => (path: string) => boolean = paths.inRoot

/**
 * The wrapped application, as `makeApp` builds it.
 *
 * @internal
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { App } from "@connected-vehicle/simulator/App"
 *
 * const logged = (app: App): App => Effect.tap(app, (response) => Effect.log(response.status))
 * ```
 * @since 0.1.0
 * @category models
 */
export type App = Effect.Effect<HttpServerResponse.HttpServerResponse, never, Env | HttpServerRequest.HttpServerRequest | Scope.Scope>
