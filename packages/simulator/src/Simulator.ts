/**
 * The simulator as a service: over loopback HTTP ({@link layer}) or in memory
 * ({@link layerTest}), with its control surface (request log, reset, fault
 * script, read access to the seeded data).
 *
 * @since 0.1.0
 */
import { Clock, Context, Deferred, Duration, Effect, Layer } from "effect"
import type { Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest, HttpEffect } from "effect/http"
import type { Server } from "node:http"
import { DROP_MARKER, inRoot, makeApp } from "./App.ts"
import type { Root } from "./App.ts"
import * as Delivery from "./Delivery.ts"
import { DEFAULT_REDIRECT_URIS, Env } from "./Env.ts"
import type { Origins } from "./Env.ts"
import * as FastPath from "./internal/fastPath.ts"
import * as Listen from "./internal/listen.ts"
import * as Options from "./internal/options.ts"
import * as Setup from "./internal/setup.ts"
import * as RateLimit from "./RateLimit.ts"
import type { Fault, RequestLogEntry } from "./State.ts"
import type { SimulatorData } from "./SimulatorData.ts"
import type { SimulatorOptions } from "./SimulatorOptions.ts"

/**
 * The roots of the spec (see `App.Root`).
 *
 * @example
 * ```ts
 * import type { Root } from "@connected-vehicle/simulator/Simulator"
 *
 * const root: Root = "management"
 * ```
 * @since 0.1.0
 * @category models
 */
export type { Root } from "./App.ts"

/**
 * The default redirect URIs and their matching (see `Env`).
 *
 * @example
 * ```ts
 * import { DEFAULT_REDIRECT_URIS, redirectUriAllowed } from "@connected-vehicle/simulator/Simulator"
 *
 * redirectUriAllowed(DEFAULT_REDIRECT_URIS, "http://127.0.0.1:8080/callback") // true
 * ```
 * @since 0.1.0
 * @category utils
 */
export { DEFAULT_REDIRECT_URIS, redirectUriAllowed } from "./Env.ts"

/**
 * Faults and the request log (see `State`).
 *
 * @example
 * ```ts
 * import type { Fault, RequestLogEntry } from "@connected-vehicle/simulator/Simulator"
 *
 * const unavailable: Fault = { _tag: "Status", status: 503 }
 * const paths = (log: ReadonlyArray<RequestLogEntry>) => log.map((entry) => entry.path)
 * ```
 * @since 0.1.0
 * @category models
 */
export type { Fault, RequestLogEntry } from "./State.ts"

/**
 * The control surface of webhook deliveries (see `Delivery`).
 *
 * @example
 * ```ts
 * import type { WebhookInput } from "@connected-vehicle/simulator/Simulator"
 *
 * const input: WebhookInput = { name: "alerts", callbackUri: "http://127.0.0.1:9000/hook", triggers: ["odometer-traveleddistance"], data: [] }
 * ```
 * @since 0.2.0
 * @category models
 */
export type {
  DeliveryLogEntry,
  Queued,
  SubscriptionInput,
  SubscriptionView,
  VehicleErrorInput,
  WebhookControlError,
  WebhookInput,
  WebhookPatch,
  WebhookView
} from "./Delivery.ts"

/**
 * Options of a simulator run (see `SimulatorOptions`).
 *
 * @example
 * ```ts
 * import type { SimulatorOptions } from "@connected-vehicle/simulator/Simulator"
 *
 * const options: SimulatorOptions = { seed: 7, latency: "20 millis" }
 * ```
 * @since 0.1.0
 * @category models
 */
export type { SimulatorOptions } from "./SimulatorOptions.ts"

/**
 * Read access to the seeded dataset (see `SimulatorData`).
 *
 * @example
 * ```ts
 * import type { SimulatorData } from "@connected-vehicle/simulator/Simulator"
 *
 * const connected = (data: SimulatorData) => data.vehicleIds.slice(0, data.connectionCount)
 * ```
 * @since 0.1.0
 * @category models
 */
export type { SimulatorData, VehicleView } from "./SimulatorData.ts"

/**
 * The simulator.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Simulator, layerTest } from "@connected-vehicle/simulator/Simulator"
 *
 * const program = Effect.gen(function*() {
 *   const sim = yield* Simulator
 *   yield* sim.injectFaults({ path: "/v3/vehicles", faults: [{ _tag: "Status", status: 503 }] })
 * }).pipe(Effect.provide(layerTest({ seed: 7 })))
 * ```
 * @since 0.1.0
 * @category services
 */
export class Simulator extends Context.Service<Simulator, {
  /** Origin of the simulator, e.g. `http://127.0.0.1:43123` (empty string for {@link layerTest}). */
  readonly url: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly requests: Effect.Effect<ReadonlyArray<RequestLogEntry>>
  readonly resetLog: Effect.Effect<void>
  /** State (codes, tokens, fault script, random faults) and log back to the seed. */
  readonly reset: Effect.Effect<void>
  /**
   * The next matching requests get these faults, one each, in order; `path` is matched on the URL's `App.routePath`.
   * A `Delay` whose `delay` is not a non-negative, finite `Duration` input, or that gives the renamed `millis`, dies with an `InvalidArgument` naming it.
   */
  readonly injectFaults: (options: {
    readonly path?: string | RegExp
    readonly method?: string
    readonly faults: ReadonlyArray<Fault>
  }) => Effect.Effect<void>
  readonly data: SimulatorData
  /** Open connections (sockets) on the simulator's server(s); 0 for {@link layerTest}. */
  readonly connections: Effect.Effect<number>
  /** The webhook secret of this simulator (see {@link SimulatorOptions.webhookSecret}). */
  readonly webhookSecret: Redacted.Redacted<string>
  /** Creates a webhook (listed by `GET /v3/webhooks`) and waits for its `VERIFY` handshake. */
  readonly createWebhook: Delivery.Deliveries["createWebhook"]
  /** Changes a created webhook; a new callback (or the same one, while not verified) is verified again, a new `secret` signs its next attempts (retries included). */
  readonly updateWebhook: Delivery.Deliveries["updateWebhook"]
  /** Deletes a created webhook and its subscriptions; its attempts still due are logged `dropped`, never sent. */
  readonly deleteWebhook: Delivery.Deliveries["deleteWebhook"]
  /** Subscribes a connected vehicle to a created webhook (listed by `GET /v3/subscriptions`); sends `FIRST_DELIVERY`. */
  readonly subscribe: Delivery.Deliveries["subscribe"]
  /** Sets a signal's body on a vehicle: a `VEHICLE_STATE` to each subscribed webhook it triggers (none when the connection may not read it). */
  readonly setSignal: Delivery.Deliveries["setSignal"]
  /** Injects an error on a vehicle: a `VEHICLE_ERROR` to each subscribed webhook. */
  readonly injectVehicleError: Delivery.Deliveries["injectVehicleError"]
  /** Resolves an injected error: a `VEHICLE_ERROR` with state `RESOLVED`. */
  readonly resolveVehicleError: Delivery.Deliveries["resolveVehicleError"]
  /** The delivery log (every attempt), oldest first. */
  readonly deliveries: Effect.Effect<ReadonlyArray<Delivery.DeliveryLogEntry>>
  /** Requests per vehicle and application (accepted, limited, most in a window) and token grants (see `RateLimit`). */
  readonly usage: Effect.Effect<RateLimit.UsageSnapshot>
  /** Zeroes the usage counters (the limits stay). */
  readonly resetUsage: Effect.Effect<void>
  /** Replaces the request limits (`{}` turns them off); every window starts afresh. */
  readonly setRateLimits: (options: RateLimit.RateLimitOptions) => Effect.Effect<void, RateLimit.RateLimitConfigError>
  /** Starts a burst of webhook deliveries (duplicates, lost acknowledgements, reordering; see `Burst`). */
  readonly startBurst: Delivery.Deliveries["startBurst"]
  /** The progress of the last burst. */
  readonly burst: Delivery.Deliveries["burst"]
  /** Waits until every delivery of the last burst settled (or it was cancelled). */
  readonly awaitBurst: Delivery.Deliveries["awaitBurst"]
  /** Stops the last burst. */
  readonly cancelBurst: Delivery.Deliveries["cancelBurst"]
  /** The ground truth of the last burst: its distinct events, the newest value per vehicle and signal. */
  readonly burstTruth: Delivery.Deliveries["burstTruth"]
}>()("@connected-vehicle/simulator/Simulator") {}

/**
 * Default client id.
 *
 * @example
 * ```ts
 * import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET } from "@connected-vehicle/simulator/Simulator"
 *
 * const credentials = { clientId: DEFAULT_CLIENT_ID, clientSecret: DEFAULT_CLIENT_SECRET }
 * ```
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_CLIENT_ID = "demo-client-id"

/**
 * Default client secret.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { DEFAULT_CLIENT_SECRET } from "@connected-vehicle/simulator/Simulator"
 *
 * const clientSecret = Redacted.make(DEFAULT_CLIENT_SECRET)
 * ```
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_CLIENT_SECRET = "demo-client-secret"

/**
 * Origin the in-memory client of {@link layerTest} answers.
 *
 * @example
 * ```ts
 * import { TEST_ORIGIN } from "@connected-vehicle/simulator/Simulator"
 *
 * const vehiclesUrl = `${TEST_ORIGIN}/v3/vehicles` // answered by layerTest's HttpClient
 * ```
 * @since 0.1.0
 * @category constants
 */
export const TEST_ORIGIN = "http://simulator.test"

/** Builds the dataset, the state and the wrapped application in the current scope. */
const setup = Effect.fnUntraced(function*(options: SimulatorOptions | undefined, checked: Options.Checked) {
  const clock = yield* Clock.Clock
  const now = () => clock.currentTimeMillisUnsafe()
  const data = Setup.datasetOf(options)
  const state = yield* Setup.makeState(options, checked.accessSeconds, now)
  const { deliveries, usage } = yield* Setup.makeEngines(options, data, state, now)
  const origins: Origins = {
    vehicle: TEST_ORIGIN,
    management: TEST_ORIGIN,
    compatibility: TEST_ORIGIN,
    authorization: TEST_ORIGIN,
    legacy: TEST_ORIGIN
  }
  const env = Env.of({
    data,
    state,
    clientId: options?.clientId ?? DEFAULT_CLIENT_ID,
    clientSecret: options?.clientSecret ?? DEFAULT_CLIENT_SECRET,
    redirectUris: [...(options?.redirectUris ?? DEFAULT_REDIRECT_URIS)],
    origins,
    deliveries,
    usage,
    enforcePermissions: options?.enforcePermissions ?? true,
    legacySunset: checked.legacySunset
  })
  const { latency } = checked
  const makeHandler = (allow?: (path: string) => boolean, rootOrigins?: Readonly<Record<Root, string>>) =>
    Effect.map(
      makeApp({ latency, allow, retireLegacy: options?.retireLegacy, origins: rootOrigins }),
      (app) => app.pipe(Effect.provideService(Env, env))
    )
  const handler = yield* makeHandler()
  const fastPath = (allow?: (path: string) => boolean) =>
    FastPath.make(env, { latencyMillis: Duration.toMillis(latency), allow, retireLegacy: options?.retireLegacy })
  const service = (url: string, servers: ReadonlyArray<Server> = []) => Simulator.of(Setup.serviceOf(env)(url, servers))
  return { env, handler, makeHandler, fastPath, service, origins }
})

/**
 * Default of {@link SimulatorOptions.headersTimeout}: a request's head
 * (request line and headers) must arrive within 10 s of its first byte (or
 * the `requestTimeout`, when that is shorter).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { DEFAULT_HEADERS_TIMEOUT, layer } from "@connected-vehicle/simulator/Simulator"
 *
 * layer({ headersTimeout: Duration.divideUnsafe(DEFAULT_HEADERS_TIMEOUT, 10) }) // 408 after 1 s
 * ```
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_HEADERS_TIMEOUT: Duration.Duration = Options.DEFAULT_HEADERS_TIMEOUT

/**
 * Default of {@link SimulatorOptions.requestTimeout}: a whole request
 * (head and body) must arrive within 30 s of its first byte.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { DEFAULT_REQUEST_TIMEOUT, layer } from "@connected-vehicle/simulator/Simulator"
 *
 * layer({ requestTimeout: Duration.times(DEFAULT_REQUEST_TIMEOUT, 2) }) // slow uploads allowed a minute
 * ```
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_REQUEST_TIMEOUT: Duration.Duration = Options.DEFAULT_REQUEST_TIMEOUT

const roots = ["vehicle", "management", "compatibility", "authorization", "legacy"] as const

/**
 * The simulator listening on loopback (`port` 0, the default, picks a free port;
 * `host` defaults to 127.0.0.1; one with an IPv6 zone id, `fe80::1%eth0`, which
 * no URL can carry, throws an `InvalidArgument`). The server closes with the layer's scope.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Simulator, layer } from "@connected-vehicle/simulator/Simulator"
 *
 * const program = Effect.gen(function*() {
 *   const sim = yield* Simulator
 *   yield* Effect.log(`simulator listening on ${sim.url}`)
 * }).pipe(Effect.provide(layer({ seed: 42, port: 4010 })))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options?: SimulatorOptions & { readonly port?: number; readonly host?: string }
): Layer.Layer<Simulator> => {
  const checked = Options.checked(options, "Simulator.layer", ["port", "host"])
  return Layer.effect(
    Simulator,
    Effect.gen(function*() {
      const { env, fastPath, handler, origins, service } = yield* setup(options, checked)
      const { node, url } = yield* Listen.listen(handler, fastPath(), env, Listen.timeoutOptions(checked), options?.host ?? "127.0.0.1", options?.port ?? 0)
      for (const root of roots) origins[root] = url
      return service(url, [node])
    }).pipe(Effect.orDie)
  )
}

/**
 * The origin of each root when the roots listen on separate ports.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SimulatorRoots, layerRoots } from "@connected-vehicle/simulator/Simulator"
 *
 * const managementUrl = SimulatorRoots.useSync((roots) => roots.management).pipe(
 *   Effect.provide(layerRoots())
 * )
 * ```
 * @since 0.1.0
 * @category services
 */
export class SimulatorRoots extends Context.Service<SimulatorRoots, Readonly<Record<Root, string>>>()(
  "@connected-vehicle/simulator/SimulatorRoots"
) {}

/**
 * The roots of the spec on separate ports (one shared state): each port serves
 * only its root's paths (plus `/openapi.json` and `/docs`, where each path
 * names its root's origin in `servers`) and answers 404 for the others. `Simulator.url` is the vehicle root's origin. Ports default to 0
 * (free ports).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SimulatorRoots, layerRoots } from "@connected-vehicle/simulator/Simulator"
 *
 * const program = Effect.gen(function*() {
 *   const roots = yield* SimulatorRoots
 *   yield* Effect.log(roots.vehicle, roots.authorization)
 * }).pipe(Effect.provide(layerRoots({ seed: 42 })))
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerRoots = (
  options?: SimulatorOptions & { readonly host?: string; readonly ports?: Partial<Record<Root, number>> }
): Layer.Layer<Simulator | SimulatorRoots> => {
  const checked = Options.checked(options, "Simulator.layerRoots", ["host", "ports"])
  return Layer.effectContext(
    Effect.gen(function*() {
      const { env, fastPath, makeHandler, origins, service } = yield* setup(options, checked)
      const host = options?.host ?? "127.0.0.1"
      const urls = {} as Record<Root, string>
      const servers: Array<Server> = []
      // each root's application names every root's origin in its document: built once all listen (requests wait)
      const apps = {} as Record<Root, Deferred.Deferred<Effect.Success<ReturnType<typeof makeHandler>>>>
      for (const root of roots) {
        const app = apps[root] = yield* Deferred.make<Effect.Success<ReturnType<typeof makeHandler>>>()
        const { node, url } = yield* Listen.listen(Effect.flatten(Deferred.await(app)), fastPath(inRoot(root)), env, Listen.timeoutOptions(checked), host, options?.ports?.[root] ?? 0)
        urls[root] = url
        origins[root] = url
        servers.push(node)
      }
      for (const root of roots) yield* Deferred.succeed(apps[root], yield* makeHandler(inRoot(root), urls))
      return Context.make(Simulator, service(urls.vehicle, servers)).pipe(Context.add(SimulatorRoots, urls))
    }).pipe(Effect.orDie)
  )
}

/**
 * The simulator without a socket, plus an `HttpClient` wired straight to it.
 * The client answers URLs starting with `http://simulator.test` and relative
 * paths (`/v3/...`, which it prefixes with that origin); any other URL fails
 * as a transport error. An injected `Drop` fault is a transport error too.
 * Like Node's `fetch`, it sends `User-Agent: node` when the request has none.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpClient } from "effect/http"
 * import { TEST_ORIGIN, layerTest } from "@connected-vehicle/simulator/Simulator"
 *
 * const program = HttpClient.get(`${TEST_ORIGIN}/v3/compatible-vehicles?region=US`).pipe(
 *   Effect.provide(layerTest({ seed: 42 }))
 * )
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layerTest = (
  options?: SimulatorOptions
): Layer.Layer<Simulator | HttpClient.HttpClient> => {
  const checked = Options.checked(options, "Simulator.layerTest", [])
  return Layer.effectContext(Effect.gen(function*() {
    const { handler, service } = yield* setup(options, checked)
    const context = yield* Effect.context<never>()
    const web = HttpEffect.toWebHandlerWith(context)(handler as any) as (request: Request) => Promise<Response>
    const fetchSimulator: typeof globalThis.fetch = async (input, init) => {
      const request = new Request(input, init)
      // a User-Agent when the caller sets none, as Node's fetch sends one (the token endpoint requires it)
      if (!request.headers.has("user-agent")) request.headers.set("user-agent", "node")
      if (!request.url.startsWith(TEST_ORIGIN + "/")) {
        throw new TypeError(`The in-memory simulator only answers ${TEST_ORIGIN}, not ${request.url}`)
      }
      const response = await web(request)
      if (response.headers.has(DROP_MARKER)) {
        throw new TypeError("fetch failed: the simulator dropped the connection (injected fault)")
      }
      return response
    }
    const client = yield* HttpClient.HttpClient.pipe(
      Effect.provide(FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.Fetch)(fetchSimulator))))
    )
    const relative = HttpClient.mapRequest(client, (request) =>
      request.url.startsWith("/") ? HttpClientRequest.setUrl(request, TEST_ORIGIN + request.url) : request)
    return Context.make(Simulator, service("")).pipe(Context.add(HttpClient.HttpClient, relative))
  }))
}
