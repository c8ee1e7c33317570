/**
 * The Promise client over loopback: a simulator on 127.0.0.1 behind a TCP
 * proxy that records every connection (to see the client close one) and
 * every byte (to collect the secrets that crossed the wire).
 */
import { afterAll, assert, beforeAll, describe, it, vi } from "@effect/vitest"
import { Effect, ManagedRuntime, Redacted } from "effect"
import * as net from "node:net"
import * as util from "node:util"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Client from "../src/Client.ts"
import { busiestUser } from "./utils.ts"

/** The user with the most connected vehicles. */
const redirectUri = "https://app.example/callback"

interface Connection {
  readonly id: number
  /** What the client sent and received on it. */
  sent: string
  received: string
  /** Resolves when the client's side of the connection is closed. */
  readonly closed: Promise<void>
}

/** A TCP proxy in front of `target`, recording connections and bytes. */
const startProxy = async (target: URL) => {
  const connections: Array<Connection> = []
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    let onClose!: () => void
    const connection: Connection = {
      id: connections.length,
      sent: "",
      received: "",
      closed: new Promise<void>((resolve) => (onClose = resolve))
    }
    connections.push(connection)
    const upstream = net.connect(Number(target.port), target.hostname)
    sockets.add(socket).add(upstream)
    socket.on("data", (chunk: Buffer) => {
      connection.sent += chunk.toString("latin1")
      upstream.write(chunk)
    })
    upstream.on("data", (chunk: Buffer) => {
      connection.received += chunk.toString("latin1")
      socket.write(chunk)
    })
    socket.on("close", () => {
      onClose()
      upstream.destroy()
    })
    upstream.on("close", () => socket.destroy())
    socket.on("error", () => {})
    upstream.on("error", () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as net.AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    connections,
    /** Every token and credential that crossed the wire. */
    secrets: () => {
      const out = new Set<string>()
      for (const c of connections) {
        for (const m of c.sent.matchAll(/authorization: (?:Bearer|Basic) ([^\r\n]+)/gi)) out.add(m[1]!)
        for (const m of c.received.matchAll(/"(?:access_token|refresh_token)":"([^"]+)"/g)) out.add(m[1]!)
      }
      return out
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      })
  }
}

let simRuntime: ManagedRuntime.ManagedRuntime<Simulator.Simulator, never>
let sim: Simulator.Simulator["Service"]
let proxy: Awaited<ReturnType<typeof startProxy>>
let clientSecret: string

beforeAll(async () => {
  simRuntime = ManagedRuntime.make(Simulator.layer({ port: 0 }))
  sim = await simRuntime.runPromise(Effect.service(Simulator.Simulator))
  clientSecret = Redacted.value(sim.clientSecret)
  proxy = await startProxy(new URL(sim.url))
}, 60_000)

afterAll(async () => {
  await proxy?.close()
  await simRuntime?.dispose()
}, 60_000)

const makeClient = (options?: Partial<Client.ClientOptions>) =>
  Client.createClient({
    clientId: sim.clientId,
    clientSecret,
    origin: proxy.origin,
    redirectUri,
    transport: { retry: { initialDelayMillis: 5, maxDelayMillis: 20 } },
    ...options
  } as Client.ClientOptions)

const inject = (path: string, faults: ReadonlyArray<Simulator.Fault>) => simRuntime.runPromise(sim.injectFaults({ path, faults }))
const requests = () => simRuntime.runPromise(sim.requests)

/** The code of the simulator's consent redirect for `userId` (not followed). */
const consentCode = async (userId: string) => {
  const query = new URLSearchParams({ response_type: "code", client_id: sim.clientId, redirect_uri: redirectUri, login_hint: userId })
  const response = await fetch(`${sim.url}/oauth/authorize?${query}`, { redirect: "manual" })
  const code = new URL(response.headers.get("location") ?? "", sim.url).searchParams.get("code")
  assert.isNotNull(code, `consent for ${userId}: ${response.status}`)
  return code!
}

/** The error a promise rejects with (fails the test if it resolves). */
const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  assert.fail("expected the call to reject")
}

const collect = async <A>(iterable: AsyncIterable<A>): Promise<Array<A>> => {
  const out: Array<A> = []
  for await (const a of iterable) out.push(a)
  return out
}

/** The connection that carried a request matching `line` (waits for it: the request is then in flight). */
const carrying = async (line: RegExp): Promise<Connection> => {
  for (;;) {
    const found = proxy.connections.find((c) => line.test(c.sent))
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const errorsSeen: Array<unknown> = []

/** The rejection, checked to be an instance of `classes`, and kept for the redaction test. */
const expectError = async <C extends new(...args: any) => Client.ConnectedVehicleError>(
  promise: Promise<unknown>,
  first: C,
  ...also: ReadonlyArray<new(...args: any) => Client.ConnectedVehicleError>
): Promise<InstanceType<C>> => {
  const error = await rejection(promise)
  errorsSeen.push(error)
  for (const c of [first, ...also]) assert.instanceOf(error, c)
  assert.instanceOf(error, Client.ConnectedVehicleError)
  assert.instanceOf(error, Error)
  return error as InstanceType<C>
}

describe("Client", () => {
  it("every v3 and legacy method over loopback; dates are Dates", async () => {
    await using client = makeClient()
    const userId = busiestUser(sim.data)
    const vehicleId = sim.data.vehiclesOf(userId)[0]!
    const connection = sim.data.connectionOf(vehicleId)!
    const target = { vehicleId, userId: connection.userId }

    const signals = await client.v3.signals.list({ ...target, pageSize: 2 })
    assert.strictEqual(signals.included.vehicle.id, vehicleId)
    const code = signals.data[0]!.attributes.code
    const signal = await client.v3.signals.get({ ...target, code })
    assert.strictEqual(signal.data.attributes.code, code)
    assert.instanceOf(signal.data.meta.retrievedAt, Date)
    const signalPages = await collect(client.v3.signals.pages({ ...target, pageSize: 3 }))
    const allSignals = await collect(client.v3.signals.iterate(target))
    assert.strictEqual(signalPages.flatMap((p) => p.data).length, allSignals.length)
    assert.strictEqual(allSignals.length, signals.meta.totalCount)

    const connections = await client.v3.connections.list({ userId: connection.userId, pageSize: 100 })
    assert.isTrue(connections.data.some((c) => c.id === connection.connectionId))
    assert.instanceOf(connections.data[0]!.meta.createdAt, Date)
    const got = await client.v3.connections.get(connection.connectionId)
    assert.strictEqual(got.data.relationships.vehicle.data.id, vehicleId)

    const subscriptions = await client.v3.subscriptions.list({ pageSize: 1 })
    const subscription = await client.v3.subscriptions.get(subscriptions.data[0]!.id)
    assert.strictEqual(subscription.data.id, subscriptions.data[0]!.id)

    const webhooks = await client.v3.webhooks.list({ pageSize: 100 })
    assert.strictEqual(webhooks.meta.totalCount, sim.data.webhooks.length)
    const webhook = await client.v3.webhooks.get(sim.data.webhooks[0]!.id)
    assert.strictEqual(webhook.data.id, sim.data.webhooks[0]!.id)
    assert.strictEqual((await collect(client.v3.webhooks.pages({ pageSize: 3 }))).length, Math.ceil(sim.data.webhooks.length / 3))

    const compatible = await client.v3.compatibility.list({ region: "US" })
    assert.isTrue(compatible.data.length > 0 && compatible.data.every((e) => e.attributes.region === "US"))
    // the listing is cached: what one caller does to its copy does not reach the next
    const count = compatible.data.length
    ;(compatible.data as Array<unknown>).length = 0
    assert.strictEqual((await client.v3.compatibility.list({ region: "US" })).data.length, count)
    await client.v3.compatibility.invalidate()

    // legacy: consent URL, then the code exchange
    const url = new URL(await client.legacy.authorizationUrl({ permissions: ["read_odometer"], state: "s-1" }))
    assert.strictEqual(url.searchParams.get("redirect_uri"), redirectUri)
    assert.strictEqual(url.searchParams.get("state"), "s-1")
    await client.legacy.login({ code: await consentCode(userId) })
    const ids = sim.data.vehiclesOf(userId)
    const page = await client.legacy.list({ limit: 2 })
    assert.deepStrictEqual(page.vehicles, ids.slice(0, 2))
    assert.deepStrictEqual(await collect(client.legacy.iterate({ limit: 2 })), [...ids])
    const odometer = await client.legacy.odometer(vehicleId, { unitSystem: "imperial" })
    assert.strictEqual(odometer.unitSystem, "imperial")
    assert.isTrue(odometer.value.distance >= 0)
    assert.instanceOf(odometer.dataAge, Date)
    assert.isNumber((await client.legacy.location(vehicleId)).value.latitude)
    assert.strictEqual((await client.legacy.vin(vehicleId)).value.vin, sim.data.vehicle(vehicleId)!.vin)
    assert.isDefined((await client.legacy.engineOil(vehicleId)).value)
    assert.isDefined((await client.legacy.tirePressure(vehicleId)).value)
    const supported = ids.find((id) => sim.data.vehicle(id)!.supportsServiceHistory)
    const unsupported = ids.find((id) => !sim.data.vehicle(id)!.supportsServiceHistory)
    assert.isDefined(supported, "the busiest user of seed 42 has a vehicle with service history")
    assert.isDefined(unsupported, "and one without")
    assert.isArray((await client.legacy.serviceHistory(supported!)).value)
    {
      await expectError(client.legacy.serviceHistory(unsupported!), Client.CompatibilityError)
      const mixed = await client.legacy.batch(unsupported!, ["/vin", "/service/history"])
      assert.isTrue(mixed["/vin"].ok)
      const entry = mixed["/service/history"]
      assert.isFalse(entry.ok)
      if (!entry.ok) {
        assert.instanceOf(entry.error, Client.CompatibilityError)
        assert.strictEqual(entry.error.type, "COMPATIBILITY")
        errorsSeen.push(entry.error)
      }
    }
    const batch = await client.legacy.batch(vehicleId, ["/vin", "/odometer"])
    assert.isTrue(batch["/vin"].ok && batch["/odometer"].ok)
    if (batch["/vin"].ok) assert.strictEqual(batch["/vin"].reading.value.vin, sim.data.vehicle(vehicleId)!.vin)

    await client.legacy.logout()
    await expectError(client.legacy.list(), Client.CredentialsError)
  }, 60_000)

  it("for await pages through every connection, subscription and vehicle; a break stops the requests", async () => {
    await using client = makeClient()
    const ids = (await collect(client.v3.connections.iterate({ pageSize: 7 }))).map((c) => c.id)
    assert.strictEqual(ids.length, sim.data.connectionCount)
    assert.strictEqual(new Set(ids).size, ids.length)
    const pages = await collect(client.v3.connections.pages({ pageSize: 7 }))
    assert.strictEqual(pages.length, Math.ceil(sim.data.connectionCount / 7))
    assert.deepStrictEqual(pages.flatMap((p) => p.data.map((c) => c.id)), ids)
    assert.strictEqual((await collect(client.v3.subscriptions.iterate({ pageSize: 13 }))).length, sim.data.subscriptionCount)

    const before = (await requests()).filter((r) => r.path === "/v3/connections").length
    let seen = 0
    for await (const _ of client.v3.connections.iterate({ pageSize: 5 })) {
      if (++seen === 6) break
    }
    const after = (await requests()).filter((r) => r.path === "/v3/connections").length
    assert.strictEqual(after - before, 2, "two pages of 5 for 6 items, none after the break")

    const userId = busiestUser(sim.data)
    await client.legacy.login({ code: await consentCode(userId) })
    assert.deepStrictEqual(await collect(client.legacy.iterate({ limit: 1 })), [...sim.data.vehiclesOf(userId)])
  }, 60_000)

  it("an AbortSignal cancels an in-flight call: AbortError, and the connection is closed", async () => {
    await using client = makeClient()
    await client.v3.webhooks.list() // the token and a warm connection
    await inject("/v3/webhooks", [{ _tag: "Delay", millis: 10_000 }])
    const controller = new AbortController()
    const call = client.v3.webhooks.list({ pageSize: 17 }, { signal: controller.signal })
    // in flight: the proxy has forwarded the request
    const carrier = await carrying(/GET \/v3\/webhooks\?pageSize=17 /)
    controller.abort()
    const error = await expectError(call, Client.AbortError)
    assert.strictEqual(error.message, "The call was aborted")
    await carrier.closed // the server end saw the client close the connection

    // a signal aborted before the call: nothing is sent
    const sentBefore = (await requests()).length
    await expectError(client.v3.webhooks.list({}, { signal: AbortSignal.abort() }), Client.AbortError)
    assert.strictEqual((await requests()).length, sentBefore)

    // a for-await loop too
    await inject("/v3/connections", [{ _tag: "Delay", millis: 10_000 }])
    const loop = new AbortController()
    const iteration = collect(client.v3.connections.iterate({ pageSize: 29 }, { signal: loop.signal }))
    const loopCarrier = await carrying(/GET \/v3\/connections\?[^ ]*pageSize=29[& ]/)
    loop.abort()
    await expectError(iteration, Client.AbortError)
    await loopCarrier.closed
  }, 60_000)

  it("close() rejects the calls in flight with AbortError and later calls too", async () => {
    const client = makeClient()
    await client.v3.webhooks.list()
    await inject("/v3/webhooks", [{ _tag: "Delay", millis: 10_000 }])
    const call = client.v3.webhooks.list({ pageSize: 19 })
    await carrying(/GET \/v3\/webhooks\?pageSize=19 /)
    const rejected = expectError(call, Client.AbortError)
    await client.close()
    const error = await rejected
    assert.match(error.message, /closed/)
    await expectError(client.v3.webhooks.list(), Client.AbortError)
    await client[Symbol.asyncDispose]()
  }, 60_000)

  it("each failure is the class of its reason, with reason, status, type, code, requestId and isRetryable", async () => {
    await using client = makeClient()
    const once = { maxRetries: 0 }

    await inject("/v3/webhooks", [{ _tag: "Status", status: 400 }])
    const badRequest = await expectError(client.v3.webhooks.list({}, once), Client.ValidationError)
    assert.strictEqual(badRequest.status, 400)
    assert.strictEqual(badRequest.type, "VALIDATION")
    assert.strictEqual(badRequest.reason, "Validation")
    assert.isFalse(badRequest.isRetryable)

    // a 401 refreshes the token and replays once: the second 401 is the caller's
    await inject("/v3/webhooks", [{ _tag: "Status", status: 401 }, { _tag: "Status", status: 401 }])
    const unauthorized = await expectError(client.v3.webhooks.list({}, once), Client.AuthenticationError)
    assert.strictEqual(unauthorized.status, 401)
    assert.strictEqual(unauthorized.type, "AUTHENTICATION")
    assert.strictEqual(unauthorized.code, "UNAUTHORIZED")

    await inject("/v3/webhooks", [{ _tag: "Status", status: 403 }])
    const forbidden = await expectError(client.v3.webhooks.list({}, once), Client.PermissionDeniedError)
    assert.strictEqual(forbidden.status, 403)

    const missing = await expectError(client.v3.webhooks.get("00000000-0000-4000-8000-000000000000"), Client.NotFoundError)
    assert.strictEqual(missing.status, 404)
    assert.strictEqual(missing.type, "RESOURCE_NOT_FOUND")
    assert.strictEqual(missing.code, "NOT_FOUND")
    assert.isString(missing.requestId)
    assert.strictEqual(missing.reason, "NotFound")
    const cause = missing.cause as { readonly _tag: string; readonly reason: { readonly _tag: string } }
    assert.deepStrictEqual([cause._tag, cause.reason._tag], ["ConnectedVehicleError", "NotFound"])

    await inject("/v3/webhooks", [{ _tag: "Status", status: 409 }])
    assert.strictEqual((await expectError(client.v3.webhooks.list({}, once), Client.VehicleStateError)).status, 409)

    await inject("/v3/webhooks", [{ _tag: "Status", status: 429, retryAfter: "3" }])
    const limited = await expectError(client.v3.webhooks.list(), Client.RateLimitError)
    assert.strictEqual(limited.status, 429)
    assert.strictEqual(limited.retryAfter, 3_000)
    assert.isTrue(limited.isRetryable)
    assert.strictEqual(limited.type, "RATE_LIMIT")

    await inject("/v3/webhooks", [{ _tag: "Status", status: 500 }])
    const server = await expectError(client.v3.webhooks.list({}, once), Client.ServerError)
    assert.strictEqual(server.status, 500)
    assert.isTrue(server.isRetryable)
    assert.isString(server.requestId)

    await inject("/v3/webhooks", [{ _tag: "StallBody" }])
    const timeout = await expectError(client.v3.webhooks.list({}, { timeout: 300, maxRetries: 0 }), Client.TimeoutError)
    assert.strictEqual(timeout.timeout, 300)
    assert.strictEqual(timeout.status, 200)

    await inject("/v3/webhooks", [{ _tag: "MalformedJson" }])
    await expectError(client.v3.webhooks.list({}, once), Client.InvalidResponseError)

    const pageSize = await expectError(client.v3.connections.list({ pageSize: 0 }), Client.InvalidArgumentError)
    assert.strictEqual(pageSize.field, "pageSize")
    assert.strictEqual((await expectError(client.v3.connections.list({}, { maxRetries: -1 }), Client.InvalidArgumentError)).field, "maxRetries")
    assert.strictEqual((await expectError(client.v3.connections.list({}, { timeout: "soon" as "1 second" }), Client.InvalidArgumentError)).field, "timeout")
    await expectError(collect(client.v3.connections.iterate({ pageSize: 101 })), Client.InvalidArgumentError)
    await expectError(client.legacy.odometer(""), Client.InvalidArgumentError)
    await expectError(client.legacy.setUserToken({ accessToken: "" }), Client.InvalidArgumentError)
    // a throw while the call is built (here a getter of the caller's token) is the call's error, not a raw one
    const throwing = await expectError(
      client.legacy.setUserToken({
        get accessToken(): string {
          throw new Error("getter failed")
        }
      }),
      Client.ConnectedVehicleError
    )
    assert.strictEqual((throwing.cause as Error).message, "getter failed")
    assert.strictEqual((await expectError(client.legacy.login({ code: "" }), Client.InvalidArgumentError)).field, "code")
    await expectError(client.v3.signals.list(null as unknown as Parameters<typeof client.v3.signals.list>[0]), Client.InvalidArgumentError)
    const badOptions = (() => {
      try {
        Client.createClient({ clientId: "id", clientSecret: clientSecret, origin: "not a url" })
      } catch (error) {
        return error
      }
    })()
    assert.instanceOf(badOptions, Client.InvalidArgumentError)
    errorsSeen.push(badOptions)

    // nobody signed in
    await expectError(client.legacy.odometer("v-1"), Client.CredentialsError)
    // the code exchange refused
    assert.strictEqual((await expectError(client.legacy.login({ code: "not-a-code" }), Client.OAuthError)).status, 400)
  }, 60_000)

  it("connection refused is a ConnectionError; a wrong client secret an AuthenticationError", async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as net.AddressInfo
        server.close(() => resolve(port))
      })
    })
    {
      await using refused = makeClient({ origin: `http://127.0.0.1:${closedPort}` })
      const error = await expectError(refused.v3.compatibility.list({}, { maxRetries: 0 }), Client.ConnectionError)
      assert.isUndefined(error.status)
      assert.strictEqual(error.reason, "Connection")
    }
    await using wrong = makeClient({ clientSecret: Redacted.make(`${clientSecret}-wrong`) })
    const denied = await expectError(wrong.v3.webhooks.list(), Client.AuthenticationError)
    assert.strictEqual(denied.status, 401)
  }, 60_000)

  it("a failed token request is what happened to it: refused → ConnectionError, stalled → TimeoutError, 500/503 → ServerError, wrong secret → AuthenticationError (the CredentialsError as cause)", async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as net.AddressInfo
        server.close(() => resolve(port))
      })
    })
    type Failed = { readonly _tag: string; readonly reason: { readonly _tag: string; readonly description?: string; readonly cause?: Failed } }
    const credentialsCause = (error: Client.ConnectedVehicleError) => {
      const cause = error.cause as Failed
      assert.strictEqual(cause._tag, "ConnectedVehicleError")
      assert.strictEqual(cause.reason._tag, "Credentials")
      assert.match(error.message, /^The token request failed: /)
      // the token request's own failure
      return { description: cause.reason.description, request: cause.reason.cause!.reason._tag }
    }
    {
      // the first call fetches the application token: the token endpoint is the one refused
      await using refused = makeClient({ origin: `http://127.0.0.1:${closedPort}` })
      const error = await expectError(refused.v3.connections.list({}, { maxRetries: 0 }), Client.ConnectionError)
      assert.isFalse(error instanceof Client.CredentialsError, "not a CredentialsError")
      assert.isUndefined(error.status)
      assert.strictEqual(error.reason, "Connection")
      const { description, request } = credentialsCause(error)
      assert.strictEqual(request, "Connection")
      assert.match(description ?? "", /^Connection: POST http:\/\/127\.0\.0\.1:\d+\/oauth\/token failed/)
    }
    {
      await inject("/oauth/token", [{ _tag: "Delay", millis: 10_000 }])
      await using stalled = makeClient({ timeout: 300 })
      const error = await expectError(stalled.v3.connections.list({}, { maxRetries: 0 }), Client.TimeoutError)
      assert.strictEqual(error.reason, "Timeout")
      assert.strictEqual(error.timeout, 300)
      assert.strictEqual(credentialsCause(error).request, "Timeout")
    }
    for (const status of [500, 503]) {
      await inject("/oauth/token", [{ _tag: "Status", status }])
      await using failing = makeClient()
      const error = await expectError(failing.v3.webhooks.list({}, { maxRetries: 0 }), Client.ServerError)
      assert.strictEqual(error.status, status)
      credentialsCause(error)
      // the token endpoint is answering again: the next call gets a token and its answer
      assert.isNumber((await failing.v3.webhooks.list({ pageSize: 1 })).meta.totalCount)
    }
    {
      await using wrong = makeClient({ clientSecret: `${clientSecret}-wrong` })
      const error = await expectError(wrong.v3.connections.list({}, { maxRetries: 0 }), Client.AuthenticationError)
      assert.strictEqual(error.status, 401)
      assert.strictEqual(error.code, "invalid_client")
      assert.strictEqual(error.type, "OAUTH")
      assert.strictEqual(error.reason, "Authentication")
      assert.strictEqual(credentialsCause(error).request, "OAuth")
    }
    {
      // a refresh token the endpoint refuses (invalid_grant): the user must sign in again
      await using client = makeClient()
      await client.legacy.setUserToken({ accessToken: "stale-access-token", refreshToken: "not-a-refresh-token", expiresAt: 0 })
      const error = await expectError(client.legacy.list(), Client.CredentialsError)
      assert.strictEqual(error.status, 400)
      assert.strictEqual(error.code, "invalid_grant")
    }
  }, 60_000)

  it("CONNECTED_VEHICLE_LOG=debug prints the http attempt lines to stderr, without a secret; logLevel and logger options", async () => {
    const printed = (spy: { readonly mock: { readonly calls: ReadonlyArray<ReadonlyArray<unknown>> } }) =>
      spy.mock.calls.map((args) => util.format(...args))
    const stderr = vi.spyOn(console, "error").mockImplementation(() => {})
    const stdout = vi.spyOn(console, "log").mockImplementation(() => {})
    const previous = process.env["CONNECTED_VEHICLE_LOG"]
    const userId = busiestUser(sim.data)
    const vehicleId = sim.data.vehiclesOf(userId)[0]!
    try {
      // without the variable: nothing below info
      delete process.env["CONNECTED_VEHICLE_LOG"]
      {
        await using quiet = makeClient()
        await quiet.v3.webhooks.list({ pageSize: 1 })
      }
      assert.isFalse([...printed(stderr), ...printed(stdout)].some((line) => line.includes("http attempt")))

      process.env["CONNECTED_VEHICLE_LOG"] = "debug"
      {
        await using client = makeClient()
        await client.v3.webhooks.list({ pageSize: 1 })
        await client.legacy.login({ code: await consentCode(userId) })
        await client.legacy.odometer(vehicleId)
        await inject("/v3/webhooks", [{ _tag: "Status", status: 500 }])
        await expectError(client.v3.webhooks.list({ pageSize: 2 }, { maxRetries: 0 }), Client.ServerError)
      }
      const lines = printed(stderr).filter((line) => line.includes("http attempt"))
      assert.isTrue(lines.some((line) => line.includes("DEBUG") && line.includes("/oauth/token")), lines.join("\n"))
      assert.isTrue(lines.some((line) => line.includes("/v3/webhooks") && line.includes("status: 500")), lines.join("\n"))
      assert.isTrue(lines.some((line) => line.includes(`/v2.0/vehicles/${vehicleId}/odometer`)), lines.join("\n"))
      assert.isFalse(printed(stdout).some((line) => line.includes("http attempt")), "stdout is the application's")

      // the option wins over the variable; a logger receives the lines instead of stderr
      stderr.mockClear()
      const entries: Array<Client.LogEntry> = []
      process.env["CONNECTED_VEHICLE_LOG"] = "off"
      {
        await using client = makeClient({ logLevel: "debug", logger: (entry) => entries.push(entry) })
        await client.v3.connections.list({ pageSize: 1 })
      }
      const attempts = entries.filter((e) => e.message === "http attempt")
      assert.isTrue(attempts.some((e) => e.level === "debug" && String(e.annotations["url"]).endsWith("/oauth/token")))
      assert.isTrue(attempts.some((e) => e.annotations["status"] === 200 && String(e.annotations["url"]).includes("/v3/connections")))
      assert.isTrue(attempts.every((e) => e.date instanceof Date))
      assert.isFalse(printed(stderr).some((line) => line.includes("http attempt")))
      {
        await using off = makeClient()
        await off.v3.connections.list({ pageSize: 1 })
      }
      assert.isFalse(printed(stderr).some((line) => line.includes("http attempt")))

      // a bad level is an InvalidArgumentError naming it
      process.env["CONNECTED_VEHICLE_LOG"] = "verbose"
      const badEnv = (() => {
        try {
          makeClient()
        } catch (error) {
          return error
        }
      })()
      assert.instanceOf(badEnv, Client.InvalidArgumentError)
      assert.strictEqual((badEnv as Client.InvalidArgumentError).field, "CONNECTED_VEHICLE_LOG")
      delete process.env["CONNECTED_VEHICLE_LOG"]
      assert.throws(() => makeClient({ logLevel: "loud" as "debug" }), /logLevel/)

      const secrets = new Set([clientSecret, ...proxy.secrets()])
      assert.isTrue(secrets.size >= 3)
      const texts = [...lines, JSON.stringify(entries)]
      for (const text of texts) {
        for (const secret of secrets) assert.isFalse(text.includes(secret), `a secret in a log line: ${text.slice(0, 200)}`)
      }
    } finally {
      if (previous === undefined) delete process.env["CONNECTED_VEHICLE_LOG"]
      else process.env["CONNECTED_VEHICLE_LOG"] = previous
      stderr.mockRestore()
      stdout.mockRestore()
    }
  }, 60_000)

  it("origin and roots must be http(s) URLs; setUserToken without an expiry takes the 7200 s lifetime", async () => {
    const thrown = (f: () => unknown) => {
      try {
        f()
      } catch (error) {
        errorsSeen.push(error)
        return error
      }
      assert.fail("expected a throw")
    }
    for (const origin of ["ftp://x", "file:///etc", "ws://127.0.0.1:1", "javascript:alert(1)", "127.0.0.1:8080"]) {
      const error = thrown(() => Client.createClient({ clientId: "id", clientSecret, origin }))
      assert.instanceOf(error, Client.InvalidArgumentError, origin)
      assert.strictEqual((error as Client.InvalidArgumentError).field, "origin")
    }
    const credentialed = thrown(() => Client.createClient({ clientId: "id", clientSecret, origin: "http://me:hunter2@127.0.0.1:1" }))
    assert.instanceOf(credentialed, Client.InvalidArgumentError)
    assert.notInclude((credentialed as Error).message, "hunter2")
    const roots = { base: `${sim.url}/v3`, management: `${sim.url}/v3`, compatibility: `${sim.url}/v3`, authorization: sim.url, legacy: "ftp://legacy" }
    const badRoot = thrown(() => Client.createClient({ clientId: "id", clientSecret, roots }))
    assert.strictEqual((badRoot as Client.InvalidArgumentError).field, "roots.legacy")
    for (const origin of [proxy.origin, "https://api.example.com", "HTTP://127.0.0.1:1"]) {
      await Client.createClient({ clientId: "id", clientSecret, origin }).close()
    }

    await using client = makeClient()
    const userId = busiestUser(sim.data)
    const vehicleId = sim.data.vehiclesOf(userId)[0]!
    const exchange = await fetch(`${sim.url}/oauth/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${sim.clientId}:${clientSecret}`).toString("base64")}`
      },
      body: new URLSearchParams({ grant_type: "authorization_code", code: await consentCode(userId), redirect_uri: redirectUri })
    })
    const body = await exchange.json() as { access_token: string; refresh_token: string }
    const stored: Array<{ readonly expiresAt: number; readonly issuedAt?: number | undefined }> = []
    await using remembering = makeClient({
      tokenStore: {
        get: async () => undefined,
        set: async (_key, token) => void stored.push(token),
        remove: async () => {}
      }
    })
    await remembering.legacy.setUserToken({ accessToken: body.access_token })
    assert.strictEqual(stored.length, 1)
    assert.strictEqual(stored[0]!.expiresAt - stored[0]!.issuedAt!, 7200 * 1000)
    // and the token is used as it is
    await client.legacy.setUserToken({ accessToken: body.access_token, refreshToken: body.refresh_token })
    const before = (await requests()).filter((r) => r.path === "/oauth/token").length
    assert.isTrue((await client.legacy.odometer(vehicleId)).value.distance >= 0)
    assert.strictEqual((await requests()).filter((r) => r.path === "/oauth/token").length, before, "no renewal of a fresh token")
    await expectError(client.legacy.setUserToken({ accessToken: body.access_token, expiresIn: 0 }), Client.InvalidArgumentError)
  }, 60_000)

  it("v3.migration: each migrated read equals the legacy read (metric and imperial), with the client's error classes", async () => {
    const userId = busiestUser(sim.data)
    const vehicles = sim.data.vehiclesOf(userId)
    // readings fixed through the control surface (a generated one changes if the vehicle reports
    // between the two reads), with more decimals than v2.0 keeps: both reads answer the same datum
    const fixed = new Set<string>()
    for (const [i, vehicleId] of vehicles.entries()) {
      const readings: ReadonlyArray<readonly [string, unknown]> = [
        ["odometer-traveleddistance", { unit: "km", value: 16660.123456 + i * 7.777 }],
        ["location-preciselocation", { latitude: 45.1234567 + i / 1000, longitude: -73.7654321, heading: 90 }],
        ["internalcombustionengine-oillife", { unit: "percent", value: 76.66 - i }],
        ["wheel-tirepressures", { unit: "kPa", frontLeft: 243.7149, frontRight: 241.35 + i, backLeft: 239.96, backRight: 240.04999 }]
      ]
      for (const [code, body] of readings) {
        if (sim.data.signalStatus(vehicleId, code) !== "SUCCESS") continue
        await simRuntime.runPromise(sim.setSignal(vehicleId, code, body))
        fixed.add(`${vehicleId} ${code}`)
      }
    }
    assert.isTrue(fixed.size >= vehicles.length * 2, `${fixed.size} readings fixed`)
    for (const unitSystem of ["metric", "imperial"] as const) {
      await using client = makeClient({ unitSystem })
      await client.legacy.login({ code: await consentCode(userId) })
      const reads = [
        ["odometer-traveleddistance", (id: string) => client.legacy.odometer(id), (id: string) => client.v3.migration.odometer({ vehicleId: id, userId })],
        ["location-preciselocation", (id: string) => client.legacy.location(id), (id: string) => client.v3.migration.location({ vehicleId: id, userId })],
        ["vehicleidentification-vin", (id: string) => client.legacy.vin(id), (id: string) => client.v3.migration.vin({ vehicleId: id, userId })],
        ["internalcombustionengine-oillife", (id: string) => client.legacy.engineOil(id), (id: string) => client.v3.migration.engineOil({ vehicleId: id, userId })],
        ["wheel-tirepressures", (id: string) => client.legacy.tirePressure(id), (id: string) => client.v3.migration.tirePressure({ vehicleId: id, userId })]
      ] as const
      let same = 0
      let failed = 0
      for (const vehicleId of vehicles) {
        for (const [code, legacyRead, migratedRead] of reads) {
          const what = `${vehicleId} ${code} (${unitSystem})`
          const old = await legacyRead(vehicleId)
          const status = sim.data.signalStatus(vehicleId, code)
          if (status === undefined || status === "SUCCESS") {
            const migrated = await (migratedRead(vehicleId) as Promise<Client.MigratedReading<unknown>>)
            assert.deepStrictEqual(migrated.value, old.value, what)
            assert.strictEqual(migrated.unitSystem, unitSystem, what)
            if (status === "SUCCESS") {
              assert.instanceOf(migrated.dataAge, Date, what)
              if (fixed.has(`${vehicleId} ${code}`)) {
                assert.strictEqual(migrated.dataAge!.getTime(), old.dataAge!.getTime(), `${what} data age`)
              }
              assert.strictEqual(migrated.signal?.attributes.code, code)
            }
            same++
          } else {
            const error = await expectError(migratedRead(vehicleId), Client.ConnectedVehicleError)
            assert.include(["Authentication", "VehicleState"], error.reason, what)
            if (status === "UNAVAILABLE") {
              assert.instanceOf(error, Client.VehicleStateError, what)
              assert.strictEqual(error.code, "SIGNAL_UNAVAILABLE")
            }
            failed++
          }
        }
      }
      assert.isTrue(same >= vehicles.length * 3, `${same} compared, ${failed} failed signals`)
    }

    await using client = makeClient()
    for (const vehicleId of vehicles) assert.strictEqual(await client.v3.migration.userIdOf(vehicleId), userId)
    // without userId the user is looked up
    const vin = await client.v3.migration.vin({ vehicleId: vehicles[0]! }, { unitSystem: "imperial", timeout: "5 seconds" })
    assert.strictEqual(vin.value.vin, sim.data.vehicle(vehicles[0]!)!.vin)
    const unconnected = sim.data.vehicleIds.find((id) => sim.data.connectionOf(id) === undefined)!
    const notConnected = await expectError(client.v3.migration.odometer({ vehicleId: unconnected }), Client.NotConnectedError)
    assert.strictEqual(notConnected.vehicleId, unconnected)
    assert.strictEqual(notConnected.reason, "NotConnected")
    await expectError(client.v3.migration.userIdOf(unconnected), Client.NotConnectedError)
    assert.strictEqual((await expectError(client.v3.migration.odometer({ vehicleId: "" }), Client.InvalidArgumentError)).field, "vehicleId")
    assert.strictEqual(
      (await expectError(client.v3.migration.tirePressure({ vehicleId: vehicles[0]!, userId }, { maxRetries: -1 }), Client.InvalidArgumentError)).field,
      "maxRetries"
    )
    await expectError(client.v3.migration.location({ vehicleId: vehicles[0]!, userId }, { signal: AbortSignal.abort() }), Client.AbortError)
    const path = `/v3/vehicles/${vehicles[0]!}/signals/odometer-traveleddistance`
    await inject(path, [{ _tag: "Status", status: 500 }])
    const server = await expectError(client.v3.migration.odometer({ vehicleId: vehicles[0]!, userId }, { maxRetries: 0 }), Client.ServerError)
    assert.strictEqual(server.status, 500)
    assert.isTrue(server.isRetryable)
  }, 120_000)


  it("no secret in any thrown error: message, stack, cause chain, JSON, util.inspect", async () => {
    // a user token given by the application, and errors made with it in use
    await using client = makeClient()
    const userId = busiestUser(sim.data)
    const code = await consentCode(userId)
    const exchange = await fetch(`${sim.url}/oauth/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${sim.clientId}:${clientSecret}`).toString("base64")}`
      },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri })
    })
    const body = await exchange.json() as { access_token: string; refresh_token: string; expires_in: number }
    await client.legacy.setUserToken({ accessToken: body.access_token, refreshToken: body.refresh_token, expiresIn: body.expires_in })
    const vehicleId = sim.data.vehiclesOf(userId)[0]!
    assert.isTrue((await client.legacy.odometer(vehicleId)).value.distance >= 0)
    const path = `/v2.0/vehicles/${vehicleId}/odometer`
    for (const status of [401, 401, 403, 429, 500]) {
      await inject(path, [{ _tag: "Status", status }])
    }
    await expectError(client.legacy.odometer(vehicleId, { maxRetries: 0 }), Client.AuthenticationError)
    await expectError(client.legacy.odometer(vehicleId, { maxRetries: 0 }), Client.PermissionDeniedError)
    await expectError(client.legacy.odometer(vehicleId, { maxRetries: 0 }), Client.RateLimitError)
    await expectError(client.legacy.odometer(vehicleId, { maxRetries: 0 }), Client.ServerError)
    await inject(path, [{ _tag: "Drop" }])
    await expectError(client.legacy.odometer(vehicleId, { maxRetries: 0 }), Client.ConnectionError)
    await inject("/oauth/token", [{ _tag: "Status", status: 500 }])
    await expectError(client.legacy.setUserToken({ accessToken: body.access_token, refreshToken: body.refresh_token, expiresIn: -1 }), Client.InvalidArgumentError)
    await client.legacy.setUserToken({ accessToken: "expired-access-token-value", refreshToken: body.refresh_token, expiresAt: 0 })
    // the refresh answered 500: a ServerError (with retries, the call would try again)
    await expectError(client.legacy.odometer(vehicleId, { maxRetries: 0 }), Client.ServerError)
    // the refresh token was rotated by the refresh after the first 401: invalid_grant, sign in again
    await expectError(client.legacy.odometer(vehicleId), Client.CredentialsError)

    const secrets = new Set([clientSecret, body.access_token, body.refresh_token, "expired-access-token-value", ...proxy.secrets()])
    assert.isTrue(secrets.size >= 4)
    assert.isTrue(errorsSeen.length >= 7, `${errorsSeen.length} errors`)
    for (const error of errorsSeen) {
      const texts: Array<string> = [JSON.stringify(error), util.inspect(error, { depth: 20, showHidden: true })]
      for (let e: unknown = error; e !== undefined && e !== null; e = (e as { cause?: unknown }).cause) {
        texts.push(String(e), String((e as Error).message), String((e as Error).stack), util.inspect(e, { depth: 20 }))
        try {
          texts.push(JSON.stringify(e) ?? "")
        } catch {
          // a cycle: util.inspect covered it
        }
        if (texts.length > 400) break
      }
      for (const text of texts) {
        for (const secret of secrets) {
          assert.isFalse(text.includes(secret), `a secret in ${(error as Error).name}: ${text.slice(0, 200)}`)
        }
      }
    }
  }, 60_000)
})
