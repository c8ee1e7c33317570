/**
 * The simulator as a service: over loopback HTTP ({@link layer}) or in memory
 * ({@link layerTest}), with its control surface (request log, reset, fault
 * script, read access to the seeded data).
 *
 * @since 0.1.0
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Clock, Context, Effect, Layer, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest, HttpEffect } from "effect/http"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { Scope } from "effect"
import { createServer } from "node:http"
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import { DROP_MARKER, inRoot, makeApp, REQUEST_ID_HEADER, requestIdFor, routePath } from "./App.ts"
import type { RetireLegacy } from "./Sunset.ts"
import { deprecationHeaders, isLegacyPath } from "./Sunset.ts"
import type { Root } from "./App.ts"
import type { Dataset, VehicleInfo } from "./Data.ts"
import { makeDataset, signalStatus, supportsServiceHistory } from "./Data.ts"
import * as Delivery from "./Delivery.ts"
import { DEFAULT_REDIRECT_URIS, Env, envelope, originFor } from "./Env.ts"
import * as FastPath from "./internal/fastPath.ts"
import { hostPort } from "./internal/address.ts"
import type { Origins } from "./Env.ts"
import type { Fault, RequestLogEntry } from "./State.ts"
import { State } from "./State.ts"

export type { Root } from "./App.ts"
export { DEFAULT_REDIRECT_URIS, redirectUriAllowed } from "./Env.ts"
export type { Fault, RequestLogEntry } from "./State.ts"
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
 * Options of a simulator run.
 *
 * @since 0.1.0
 */
export interface SimulatorOptions {
  /** Seed of the dataset (default 42). */
  readonly seed?: number
  /** Number of vehicles (default 50; at least `connections`). */
  readonly vehicles?: number
  /** Number of users (default 20). */
  readonly users?: number
  /** Number of webhooks (default 8). */
  readonly webhooks?: number
  /** Number of connections, one per vehicle (default 40). */
  readonly connections?: number
  /** Client id accepted by the authorization server (default `demo-client-id`). */
  readonly clientId?: string
  /** Client secret accepted by the authorization server (default `demo-client-secret`). */
  readonly clientSecret?: string
  /**
   * Redirect URIs registered for the client (default {@link DEFAULT_REDIRECT_URIS}:
   * loopback `http` on any port, and `https://app.example`). An entry is
   * `scheme://host[:port]` (any path) or a full URI (that path only); port `*`
   * is any port. `/oauth/authorize` answers 400 for any other `redirect_uri`.
   */
  readonly redirectUris?: ReadonlyArray<string>
  /** Share of requests answered with an injected 500 (0..1, default 0; seeded). */
  readonly failureRate?: number
  /** Latency added to every request, in milliseconds (default 0). */
  readonly latencyMillis?: number
  /**
   * Rehearse the v2.0 sunset: `true` answers every `/v2.0` request `410 Gone`
   * (section 7 envelope); `"afterSunset"` does so once the simulator's `Clock`
   * reaches 2026-12-01 (`Sunset.SUNSET_MILLIS`). Default `false`: v2.0
   * answers, with its `Deprecation` / `Sunset` / `Link` headers.
   */
  readonly retireLegacy?: RetireLegacy
  /**
   * The webhook secret (the application's management token in the real
   * service): the key of every delivery's `SC-Signature` and of the `VERIFY`
   * challenge (default `Delivery.DEFAULT_WEBHOOK_SECRET`). A webhook created
   * with its own `secret` uses that one.
   */
  readonly webhookSecret?: Redacted.Redacted<string> | string
  /**
   * Loopback servers: a request's head (request line and headers) must
   * arrive within this many milliseconds of its first byte, else `408` with
   * the envelope and the connection closes (default
   * {@link DEFAULT_HEADERS_TIMEOUT_MILLIS}, 10 s; 0 = only the request
   * timeout; at most `requestTimeoutMillis`).
   */
  readonly headersTimeoutMillis?: number
  /**
   * Loopback servers: a whole request (head and body) must arrive within this
   * many milliseconds of its first byte, else `408` as above (default
   * {@link DEFAULT_REQUEST_TIMEOUT_MILLIS}, 30 s; 0 = no limit).
   */
  readonly requestTimeoutMillis?: number
}

/**
 * A seeded vehicle as tests see it.
 *
 * @since 0.1.0
 */
export interface VehicleView {
  readonly id: string
  readonly make: string
  readonly model: string
  readonly year: number
  readonly powertrainType: "ICE" | "BEV" | "PHEV"
  readonly region: "US" | "CA" | "EUROPE"
  readonly mode: "live" | "simulated"
  readonly vin: string
  readonly signalCodes: ReadonlyArray<string>
  readonly supportsServiceHistory: boolean
}

/**
 * Read access to the seeded dataset.
 *
 * @since 0.1.0
 */
export interface SimulatorData {
  readonly seed: number
  readonly users: ReadonlyArray<{ readonly id: string; readonly externalId: string }>
  /** Every vehicle id; the first `connectionCount` have a connection. */
  readonly vehicleIds: ReadonlyArray<string>
  readonly connectionOf: (vehicleId: string) => { readonly userId: string; readonly connectionId: string } | undefined
  readonly vehicle: (vehicleId: string) => VehicleView | undefined
  /** Vehicle ids connected to a user. */
  readonly vehiclesOf: (userId: string) => ReadonlyArray<string>
  readonly connectionCount: number
  readonly connectionIds: (page: { readonly offset: number; readonly limit: number }) => ReadonlyArray<string>
  readonly subscriptionCount: number
  readonly webhooks: ReadonlyArray<{
    readonly id: string
    readonly name: string
    readonly callbackUri: string
    readonly isEnabled: boolean
    readonly autoSubscribe: boolean
  }>
  /** Status of a signal of a connected vehicle (fixed by the seed). */
  readonly signalStatus: (vehicleId: string, signalCode: string) => "SUCCESS" | "ERROR" | "UNAVAILABLE" | undefined
}

/**
 * The simulator.
 *
 * @since 0.1.0
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
  /** The next matching requests get these faults, one each, in order. */
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
  /** Changes a created webhook; a new callback is verified again. */
  readonly updateWebhook: Delivery.Deliveries["updateWebhook"]
  /** Subscribes a connected vehicle to a created webhook (listed by `GET /v3/subscriptions`); sends `FIRST_DELIVERY`. */
  readonly subscribe: Delivery.Deliveries["subscribe"]
  /** Sets a signal's body on a vehicle: a `VEHICLE_STATE` to each subscribed webhook it triggers. */
  readonly setSignal: Delivery.Deliveries["setSignal"]
  /** Injects an error on a vehicle: a `VEHICLE_ERROR` to each subscribed webhook. */
  readonly injectVehicleError: Delivery.Deliveries["injectVehicleError"]
  /** Resolves an injected error: a `VEHICLE_ERROR` with state `RESOLVED`. */
  readonly resolveVehicleError: Delivery.Deliveries["resolveVehicleError"]
  /** The delivery log (every attempt), oldest first. */
  readonly deliveries: Effect.Effect<ReadonlyArray<Delivery.DeliveryLogEntry>>
}>()("@connected-vehicle/simulator/Simulator") {}

/**
 * Default client id.
 *
 * @since 0.1.0
 */
export const DEFAULT_CLIENT_ID = "demo-client-id"

/**
 * Default client secret.
 *
 * @since 0.1.0
 */
export const DEFAULT_CLIENT_SECRET = "demo-client-secret"

/**
 * Origin the in-memory client of {@link layerTest} answers.
 *
 * @since 0.1.0
 */
export const TEST_ORIGIN = "http://simulator.test"

const view = (v: VehicleInfo): VehicleView => ({
  id: v.id,
  make: v.model.make,
  model: v.model.model,
  year: v.year,
  powertrainType: v.model.powertrainType,
  region: v.model.region,
  mode: v.mode,
  vin: v.vin,
  signalCodes: v.model.signals.map((s) => s.code),
  supportsServiceHistory: supportsServiceHistory(v)
})

const makeData = (data: Dataset): SimulatorData => {
  let ids: ReadonlyArray<string> | undefined
  const indexOf = (id: string) => data.vehicleIndex(id.toLowerCase())
  return {
    seed: data.options.seed,
    users: data.users.map((u) => ({ id: u.id, externalId: u.externalId })),
    get vehicleIds() {
      ids ??= Array.from({ length: data.vehicleCount }, (_, i) => data.vehicle(i).id)
      return ids
    },
    connectionOf: (vehicleId) => {
      const i = indexOf(vehicleId)
      return i === -1 || i >= data.connectionCount
        ? undefined
        : { userId: data.user(data.connectionUser[i]!).id, connectionId: data.connectionId(i) }
    },
    vehicle: (vehicleId) => {
      const i = indexOf(vehicleId)
      return i === -1 ? undefined : view(data.vehicle(i))
    },
    vehiclesOf: (userId) => {
      const u = data.userIndex(userId.toLowerCase())
      return u === -1 ? [] : Array.from(data.vehiclesOfUser(u), (i) => data.vehicle(i).id)
    },
    connectionCount: data.connectionCount,
    connectionIds: ({ limit, offset }) => {
      const out: Array<string> = []
      for (let i = Math.max(0, offset); i < Math.min(data.connectionCount, offset + limit); i++) out.push(data.connectionId(i))
      return out
    },
    subscriptionCount: data.subscriptionCount,
    webhooks: data.webhooks.map((w) => ({
      id: w.id,
      name: w.name,
      callbackUri: w.callbackUri,
      isEnabled: w.isEnabled,
      autoSubscribe: w.autoSubscribe
    })),
    signalStatus: (vehicleId, signalCode) => {
      const i = indexOf(vehicleId)
      if (i === -1) return undefined
      const k = data.vehicle(i).model.signals.findIndex((s) => s.code === signalCode)
      return k === -1 ? undefined : signalStatus(data.options.seed, i, k).value
    }
  }
}

/** Builds the dataset, the state and the wrapped application in the current scope. */
const setup = Effect.fnUntraced(function*(options: SimulatorOptions | undefined) {
  const clock = yield* Clock.Clock
  const seed = options?.seed ?? 42
  const data = makeDataset({
    seed,
    vehicles: options?.vehicles ?? 50,
    users: options?.users ?? 20,
    webhooks: options?.webhooks ?? 8,
    connections: options?.connections ?? 40
  })
  const state = new State({
    now: () => clock.currentTimeMillisUnsafe(),
    seed,
    failureRate: Math.min(1, Math.max(0, options?.failureRate ?? 0))
  })
  const clientId = options?.clientId ?? DEFAULT_CLIENT_ID
  const clientSecret = options?.clientSecret ?? DEFAULT_CLIENT_SECRET
  const origins: Origins = {
    vehicle: TEST_ORIGIN,
    management: TEST_ORIGIN,
    compatibility: TEST_ORIGIN,
    authorization: TEST_ORIGIN,
    legacy: TEST_ORIGIN
  }
  const redirectUris = [...(options?.redirectUris ?? DEFAULT_REDIRECT_URIS)]
  const deliveries = yield* Delivery.make({ data, secret: options?.webhookSecret })
  state.onReset(deliveries.reset)
  const env = Env.of({ data, state, clientId, clientSecret, redirectUris, origins, deliveries })
  const latencyMillis = Math.max(0, options?.latencyMillis ?? 0)
  const makeHandler = (allow?: (path: string) => boolean) =>
    Effect.map(
      makeApp({ latencyMillis, allow, retireLegacy: options?.retireLegacy }),
      (app) => app.pipe(Effect.provideService(Env, env))
    )
  const handler = yield* makeHandler()
  const fastPath = (allow?: (path: string) => boolean) =>
    FastPath.make(env, { latencyMillis, allow, retireLegacy: options?.retireLegacy })
  const service = (url: string, servers: ReadonlyArray<Server> = []) =>
    Simulator.of({
      url,
      clientId,
      clientSecret: Redacted.make(clientSecret),
      requests: Effect.sync(() => state.requests()),
      resetLog: Effect.sync(() => state.resetLog()),
      reset: Effect.sync(() => state.reset()),
      injectFaults: (rule) => Effect.sync(() => state.inject(rule)),
      data: makeData(data),
      connections: Effect.promise(() => Promise.all(servers.map(openConnections)).then((counts) => counts.reduce((a, b) => a + b, 0))),
      webhookSecret: deliveries.secret,
      createWebhook: deliveries.createWebhook,
      updateWebhook: deliveries.updateWebhook,
      subscribe: deliveries.subscribe,
      setSignal: deliveries.setSignal,
      injectVehicleError: deliveries.injectVehicleError,
      resolveVehicleError: deliveries.resolveVehicleError,
      deliveries: deliveries.deliveries
    })
  return { handler, makeHandler, fastPath, service, origins, state }
})

/** After this long a socket the simulator answered outside the HTTP parser is destroyed, whatever the client does. */
const CLOSE_GRACE_MILLIS = 1_000

/** How long a rejected request's answer waits for the answers to the requests before it on the connection. */
const PENDING_ANSWERS_MILLIS = 10_000

/**
 * Default of {@link SimulatorOptions.headersTimeoutMillis}: a request's head
 * (request line and headers) must arrive within 10 s of its first byte.
 *
 * @example
 * ```ts
 * import { DEFAULT_HEADERS_TIMEOUT_MILLIS, layer } from "@connected-vehicle/simulator/Simulator"
 *
 * layer({ headersTimeoutMillis: DEFAULT_HEADERS_TIMEOUT_MILLIS / 10 }) // 408 after 1 s
 * ```
 * @since 0.2.0
 */
export const DEFAULT_HEADERS_TIMEOUT_MILLIS = 10_000

/**
 * Default of {@link SimulatorOptions.requestTimeoutMillis}: a whole request
 * (head and body) must arrive within 30 s of its first byte.
 *
 * @example
 * ```ts
 * import { DEFAULT_REQUEST_TIMEOUT_MILLIS, layer } from "@connected-vehicle/simulator/Simulator"
 *
 * layer({ requestTimeoutMillis: DEFAULT_REQUEST_TIMEOUT_MILLIS * 2 }) // slow uploads allowed a minute
 * ```
 * @since 0.2.0
 */
export const DEFAULT_REQUEST_TIMEOUT_MILLIS = 30_000

/**
 * Node's server options for the request timeouts. A request whose head or
 * whole self has not arrived in time is answered 408 by the client-error
 * path ({@link harden}). Node checks the connections every
 * `connectionsCheckingInterval`: a quarter of the shorter timeout, between
 * 25 ms and 1 s (Node's default, 30 s, would let a slow client hold a
 * connection up to 30 s past its timeout). 0 turns a timeout off; the head's
 * is capped by the request's.
 */
const timeoutOptions = (options: SimulatorOptions | undefined) => {
  const millis = (value: number | undefined, fallback: number) =>
    value === undefined || !Number.isFinite(value) ? fallback : Math.max(0, Math.floor(value))
  const requestTimeout = millis(options?.requestTimeoutMillis, DEFAULT_REQUEST_TIMEOUT_MILLIS)
  let headersTimeout = millis(options?.headersTimeoutMillis, DEFAULT_HEADERS_TIMEOUT_MILLIS)
  if (requestTimeout > 0 && (headersTimeout === 0 || headersTimeout > requestTimeout)) headersTimeout = requestTimeout
  const shortest = Math.min(...[headersTimeout, requestTimeout].filter((t) => t > 0), 4_000)
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(shortest / 4))) }
}

const ignoreError = () => {}

/** Ends a socket with a whole response, and destroys it after a grace period (the client gets to read it first). */
const endRaw = (socket: Duplex, status: number, reason: string, detail: string, requestId: string, headers = "") => {
  const body = JSON.stringify(envelope(status, detail, { requestId }))
  if (!socket.listeners("error").includes(ignoreError)) socket.on("error", ignoreError)
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `${REQUEST_ID_HEADER}: ${requestId}\r\n${headers}connection: close\r\n\r\n${body}`
  )
  const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MILLIS)
  timer.unref()
  socket.once("close", () => clearTimeout(timer))
}

/** The `Deprecation` / `Sunset` / `Link` header lines of a `/v2.0` answer written by hand. */
const deprecationLines = (origins: Origins, path: string): string => {
  let lines = ""
  for (const [name, value] of Object.entries(deprecationHeaders(originFor(origins, path)))) lines += `${name}: ${value}\r\n`
  return lines
}

const requestLine = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ ([^\s]+) HTTP\/\d\.\d\r?\n/

/**
 * The target of the request a client error belongs to, when it can be told
 * for sure: the request whose head was parsed and whose body had not ended
 * (a bad chunk, a timeout during the body), else the request line at the
 * start of the bytes Node hands over with the error (`rawPacket`), provided
 * no other request's head ends before the error. Otherwise undefined.
 */
const targetOf = (error: NodeJS.ErrnoException, socket: Duplex): string | undefined => {
  const incoming = (socket as { readonly parser?: { readonly incoming?: IncomingMessage | null } | null }).parser?.incoming
  if (incoming != null && !incoming.complete && typeof incoming.url === "string") return incoming.url
  const { bytesParsed, rawPacket } = error as { readonly rawPacket?: unknown; readonly bytesParsed?: unknown }
  if (!Buffer.isBuffer(rawPacket)) return undefined
  const text = rawPacket.subarray(0, 16_384).toString("latin1")
  const end = text.indexOf("\r\n\r\n")
  if (end !== -1 && (typeof bytesParsed !== "number" || end < bytesParsed)) return undefined
  return requestLine.exec(text)?.[1]
}

/** Node's parser runs the body of an upgrade request itself from Node 26 (nodejs/node#60016); before, the body is in `head`. */
const upgradeBodyInHead = Number(process.versions.node.split(".")[0]) < 26

/**
 * The head of an upgrade request as bytes again, without the `upgrade` token
 * of `Connection`: Node's parser reads it as an ordinary request.
 */
const ordinaryHead = (request: IncomingMessage): Buffer => {
  let head = `${request.method} ${request.url} HTTP/${request.httpVersion}\r\n`
  const raw = request.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    let value = raw[i + 1]!
    if (raw[i]!.toLowerCase() === "connection") {
      value = value.split(",").map((token) => token.trim()).filter((token) => token !== "" && token.toLowerCase() !== "upgrade").join(", ")
      if (value === "") continue
    }
    head += `${raw[i]}: ${value}\r\n`
  }
  // Node decodes header bytes as Latin-1: the same bytes go back.
  return Buffer.from(head + "\r\n", "latin1")
}

/**
 * Hands a socket Node took out of HTTP parsing for an upgrade back to the
 * server, with the upgrade request (as an ordinary one) and every byte that
 * followed it (`head`: its body and any pipelined request) first. Waits until
 * the responses to the requests before it are written (the server's new
 * parser would otherwise queue its responses behind them forever), then
 * clears the idle timeout the old parser may have left on the socket.
 */
const serveAsOrdinary = (server: Server, request: IncomingMessage, socket: Duplex, head: Buffer) => {
  // Once per socket, however many upgrade requests it carries (Node's own error listener is off until it is back).
  if (!socket.listeners("error").includes(ignoreError)) socket.on("error", ignoreError)
  try {
    socket.unshift(Buffer.concat([ordinaryHead(request), head]))
  } catch {
    socket.destroy()
    return
  }
  const reattach = () => {
    if (socket.destroyed) return
    const pending = (socket as { readonly _httpMessage?: ServerResponse | null })._httpMessage
    if (pending != null) {
      pending.once("finish", reattach)
      return
    }
    ;(socket as Duplex & { setTimeout?: (millis: number) => void }).setTimeout?.(0)
    server.emit("connection", socket)
  }
  reattach()
}

const headerRecord = (headers: IncomingHttpHeaders): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const key in headers) {
    const value = headers[key]
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

/**
 * Makes every answer of a Node server the simulator's own: the section 7
 * envelope and an `x-request-id`, or a clean close.
 *
 * - The simulator serves no upgrades (WebSocket, h2c): a request carrying
 *   `Upgrade` is answered as an ordinary one and the keep-alive connection
 *   stays parsed. Node's parser stops reading a connection's bytes after an
 *   upgrade request (whatever the server's listeners: without an `upgrade`
 *   listener, the bytes after it in the same read were dropped), so the
 *   `upgrade` listener here (in place of the platform's) hands the socket back
 *   to the server with the request, minus its `upgrade` token, and the bytes
 *   after it ({@link serveAsOrdinary}).
 * - `CONNECT` (no proxy here) is 405 and the connection closes.
 * - An `Expect` other than `100-continue` reaches the application, which
 *   answers 417 with the envelope.
 * - A missing `Host` reaches the application too (400 with the envelope).
 * - Requests Node's HTTP parser rejects (bad bytes in the request line or the
 *   headers, oversized headers, a head or request that takes too long) never
 *   reach the application: they are answered here (400, 431, 408; with the
 *   v2.0 deprecation headers when the request is seen to be under `/v2.0`)
 *   and the connection closes.
 */
const harden = (server: Server, state: State, origins: Origins): void => {
  server.removeAllListeners("upgrade")
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const framed = request.headers["transfer-encoding"] !== undefined || (request.headers["content-length"] ?? "0") !== "0"
    if (upgradeBodyInHead || !framed) return serveAsOrdinary(server, request, socket, head)
    // Node 26 and later keep the body of an upgrade request in its own stream: not replayed.
    const requestId = requestIdFor(headerRecord(request.headers)[REQUEST_ID_HEADER], state)
    const path = routePath(request.url ?? "/")
    endRaw(socket, 400, "Bad Request", "An Upgrade request with a body is not supported", requestId, isLegacyPath(path) ? deprecationLines(origins, path) : "")
  })
  server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => server.emit("request", request, response))
  server.on("connect", (request: IncomingMessage, socket: Duplex) => {
    const headers = headerRecord(request.headers)
    const requestId = requestIdFor(headers[REQUEST_ID_HEADER], state)
    state.record(request.method ?? "CONNECT", request.url ?? "", headers, requestId).status = 405
    // Whatever the client sends after the request is read and discarded, so its FIN is seen.
    socket.resume()
    endRaw(socket, 405, "Method Not Allowed", "CONNECT is not supported: the simulator is not a proxy", requestId, "allow: GET, POST\r\n")
  })
  // Node's parser reports an error again on every later read (its errors stick), and a timeout may follow: the first one is answered.
  const answered = new WeakSet<Duplex>()
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (answered.has(socket)) return
    answered.add(socket)
    if (!socket.writable || error.code === "ECONNRESET") {
      socket.destroy()
      return
    }
    if (!socket.listeners("error").includes(ignoreError)) socket.on("error", ignoreError)
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400
    const target = targetOf(error, socket)
    const path = target === undefined ? undefined : routePath(target)
    const requestId = state.nextRequestId()
    const answer = () =>
      endRaw(
        socket,
        status,
        status === 431 ? "Request Header Fields Too Large" : status === 408 ? "Request Timeout" : "Bad Request",
        status === 431 ? "Request headers are too large" : status === 408 ? "The request took too long" : "The request is not valid HTTP",
        requestId,
        path !== undefined && isLegacyPath(path) ? deprecationLines(origins, path) : ""
      )
    // The failing request, when its head was parsed (an error in its body, or a timeout during it).
    const parser = (socket as { readonly parser?: { readonly incoming?: IncomingMessage | null } | null }).parser
    const failing = parser?.incoming != null && !parser.incoming.complete ? parser.incoming : undefined
    // The answers to the requests before the failing one go first (bounded).
    const timer = setTimeout(() => socket.destroy(), PENDING_ANSWERS_MILLIS)
    timer.unref()
    socket.once("close", () => clearTimeout(timer))
    const afterPending = () => {
      if (socket.destroyed || socket.writableEnded) return
      const pending = (socket as { readonly _httpMessage?: ServerResponse | null })._httpMessage
      if (pending != null && (failing === undefined || pending.req !== failing)) {
        pending.once("finish", afterPending)
        return
      }
      clearTimeout(timer)
      // The failing request's own answer already on the wire cannot be followed by another: only a close is clean.
      if (pending?.headersSent === true) socket.destroy()
      else answer()
    }
    afterPending()
  })
}

const openConnections = (server: Server) =>
  new Promise<number>((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)))

const roots = ["vehicle", "management", "compatibility", "authorization", "legacy"] as const

/**
 * Puts the fast path (`internal/fastPath`) in front of the application's
 * `request` listener: the listener runs only for the requests the fast path
 * declines. Undone when the scope closes, before the server stops serving.
 */
const withFastPath = (node: Server, fast: FastPath.FastPath) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const listeners = node.listeners("request") as Array<(request: IncomingMessage, response: ServerResponse) => void>
      const front = (request: IncomingMessage, response: ServerResponse) => {
        if (fast(request, response)) return
        for (const listener of listeners) listener.call(node, request, response)
      }
      for (const listener of listeners) node.off("request", listener)
      node.on("request", front)
      return { front, listeners }
    }),
    ({ front, listeners }) =>
      Effect.sync(() => {
        node.off("request", front)
        for (const listener of listeners) node.on("request", listener)
      })
  )

const listen = Effect.fnUntraced(function*(
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope>,
  fast: FastPath.FastPath,
  state: State,
  origins: Origins,
  timeouts: ReturnType<typeof timeoutOptions>,
  host: string,
  port: number
) {
  // `Host` is checked by the application (an envelope, not Node's bare 400).
  const node = createServer({ requireHostHeader: false, ...timeouts })
  const server = yield* NodeHttpServer.make(() => node, { port, host, gracefulShutdownTimeout: 0 })
  yield* server.serve(handler)
  yield* withFastPath(node, fast)
  harden(node, state, origins)
  const address = server.address
  const url = `http://${hostPort(host, address._tag === "UnixPathAddress" ? 0 : address.port)}`
  return { url, node }
})

/**
 * The simulator listening on loopback (`port` 0, the default, picks a free port;
 * `host` defaults to 127.0.0.1). The server closes with the layer's scope.
 *
 * @since 0.1.0
 */
export const layer = (
  options?: SimulatorOptions & { readonly port?: number; readonly host?: string }
): Layer.Layer<Simulator> =>
  Layer.effect(
    Simulator,
    Effect.gen(function*() {
      const { fastPath, handler, origins, service, state } = yield* setup(options)
      const { node, url } = yield* listen(handler, fastPath(), state, origins, timeoutOptions(options), options?.host ?? "127.0.0.1", options?.port ?? 0)
      for (const root of roots) origins[root] = url
      return service(url, [node])
    }).pipe(Effect.orDie)
  )

/**
 * The origin of each root when the roots listen on separate ports.
 *
 * @since 0.1.0
 */
export class SimulatorRoots extends Context.Service<SimulatorRoots, Readonly<Record<Root, string>>>()(
  "@connected-vehicle/simulator/SimulatorRoots"
) {}

/**
 * The roots of the spec on separate ports (one shared state): each port serves
 * only its root's paths (plus `/openapi.json` and `/docs`) and answers 404 for
 * the others. `Simulator.url` is the vehicle root's origin. Ports default to 0
 * (free ports).
 *
 * @since 0.1.0
 */
export const layerRoots = (
  options?: SimulatorOptions & { readonly host?: string; readonly ports?: Partial<Record<Root, number>> }
): Layer.Layer<Simulator | SimulatorRoots> =>
  Layer.effectContext(
    Effect.gen(function*() {
      const { fastPath, makeHandler, origins, service, state } = yield* setup(options)
      const host = options?.host ?? "127.0.0.1"
      const urls = {} as Record<Root, string>
      const servers: Array<Server> = []
      for (const root of roots) {
        const { node, url } = yield* listen(yield* makeHandler(inRoot(root)), fastPath(inRoot(root)), state, origins, timeoutOptions(options), host, options?.ports?.[root] ?? 0)
        urls[root] = url
        origins[root] = url
        servers.push(node)
      }
      return Context.make(Simulator, service(urls.vehicle, servers)).pipe(Context.add(SimulatorRoots, urls))
    }).pipe(Effect.orDie)
  )

/**
 * The simulator without a socket, plus an `HttpClient` wired straight to it.
 * The client answers URLs starting with `http://simulator.test` and relative
 * paths (`/v3/...`, which it prefixes with that origin); any other URL fails
 * as a transport error. An injected `Drop` fault is a transport error too.
 *
 * @since 0.1.0
 */
export const layerTest = (
  options?: SimulatorOptions
): Layer.Layer<Simulator | HttpClient.HttpClient> =>
  Layer.effectContext(Effect.gen(function*() {
    const { handler, service } = yield* setup(options)
    const context = yield* Effect.context<never>()
    const web = HttpEffect.toWebHandlerWith(context)(handler as any) as (request: Request) => Promise<Response>
    const fetchSimulator: typeof globalThis.fetch = async (input, init) => {
      const request = new Request(input, init)
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
