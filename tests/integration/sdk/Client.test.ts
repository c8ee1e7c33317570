/**
 * The Promise client over loopback (see `loopback.ts`): every method, paging,
 * cancellation, closing, its options and the migrated reads.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Client from "@connected-vehicle/sdk/Client"
import { LegacyEndpoints } from "@connected-vehicle/schema/Legacy"
import {
  assertNoSecretIn,
  carrying,
  clientSecret,
  collect,
  consentCode,
  errorsSeen,
  expectError,
  inject,
  makeClient,
  proxy,
  redirectUri,
  requests,
  sim,
  simRuntime,
  useLoopback
} from "./loopback.ts"
import { busiestUser } from "@connected-vehicle/testing/Simulated"

useLoopback()

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
    // vehicles whose connections may read what is asked of them (others answer 403)
    const permits = (id: string, permission: string) => sim.data.connectionOf(id)!.permissions.includes(permission)
    const supported = ids.find((id) => sim.data.vehicle(id)!.supportsServiceHistory)
    const unsupported = ids.find((id) => !sim.data.vehicle(id)!.supportsServiceHistory && permits(id, "read_vin"))
    assert.isDefined(supported, "the busiest user of seed 42 has a vehicle with service history")
    assert.isDefined(unsupported, "and one without")
    if (permits(supported!, "read_service_history")) assert.isArray((await client.legacy.serviceHistory(supported!)).value)
    else await expectError(client.legacy.serviceHistory(supported!), Client.PermissionDeniedError)
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

  it("an AsyncTokenStore's rejection is retried by the call only when it says transient: true", async () => {
    const userId = busiestUser(sim.data)
    const vehicleId = sim.data.vehiclesOf(userId)[0]!
    const target = { vehicleId, userId: sim.data.connectionOf(vehicleId)!.userId }
    const storeOf = (failure: () => unknown) => {
      const tokens = new Map<string, Parameters<Client.AsyncTokenStore["set"]>[1]>()
      let gets = 0
      const store: Client.AsyncTokenStore = {
        get: async (key) => {
          if (gets++ === 0) throw failure()
          return tokens.get(key)
        },
        set: async (key, token) => void tokens.set(key, token),
        remove: async (key) => void tokens.delete(key)
      }
      return { store, gets: () => gets }
    }
    const blip = storeOf(() => Object.assign(new Error("connection reset"), { transient: true }))
    await using retried = makeClient({ tokenStore: blip.store })
    assert.isTrue((await retried.v3.signals.list({ ...target, pageSize: 1 })).data.length >= 0)
    assert.isAtLeast(blip.gets(), 2)
    const corrupt = storeOf(() => new Error("the stored value does not decode"))
    await using failing = makeClient({ tokenStore: corrupt.store })
    await expectError(failing.v3.signals.list({ ...target, pageSize: 1 }), Client.CredentialsError)
    assert.strictEqual(corrupt.gets(), 1)
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
    // answered after 5 s, far longer than the abort takes; the simulator's handler ends then, and with it the
    // wait of the simulator's shutdown after the file's tests (a handler is not stopped by the client's close)
    await inject("/v3/webhooks", [{ _tag: "Delay", delay: "5000 millis" }])
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
    await inject("/v3/connections", [{ _tag: "Delay", delay: "5000 millis" }])
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
    await inject("/v3/webhooks", [{ _tag: "Delay", delay: "5000 millis" }])
    const call = client.v3.webhooks.list({ pageSize: 19 })
    await carrying(/GET \/v3\/webhooks\?pageSize=19 /)
    const rejected = expectError(call, Client.AbortError)
    await client.close()
    const error = await rejected
    assert.match(error.message, /closed/)
    await expectError(client.v3.webhooks.list(), Client.AbortError)
    await client[Symbol.asyncDispose]()
  }, 60_000)

  it("options that cannot be read, and transport options the transport refuses, are an InvalidArgumentError, not a raw throw", async () => {
    const throwing = (key: string) => Object.defineProperty({}, key, { enumerable: true, get: () => { throw new Error("boom") } })
    const proxy = new Proxy({}, { get: () => { throw new Error("boom") }, ownKeys: () => { throw new Error("boom") } })
    const base = { clientId: "id", clientSecret, origin: "http://127.0.0.1:1" }
    const thrown = (f: () => unknown) => {
      try {
        f()
      } catch (error) {
        errorsSeen.push(error)
        return error as Client.InvalidArgumentError
      }
      assert.fail("expected a throw")
    }
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [proxy, "options"],
      [Object.assign(throwing("origin"), { clientId: "id", clientSecret }), "options"],
      [{ ...base, transport: { retry: null } }, "transport.retry"]
    ]
    for (const [options, field] of cases) {
      const error = thrown(() => Client.createClient(options as Client.ClientOptions))
      assert.instanceOf(error, Client.InvalidArgumentError)
      assert.strictEqual(error.field, field)
    }
    const client = makeClient()
    const unsafe = <F extends (...args: Array<any>) => any>(f: F) => f as (...args: Array<unknown>) => ReturnType<F>
    for (const options of [proxy, throwing("timeout")]) {
      for (const call of [
        () => unsafe(client.v3.connections.list)({}, options),
        () => unsafe(client.v3.webhooks.get)("wh_1", options),
        () => unsafe(client.legacy.odometer)("veh_1", options),
        () => collect(unsafe(client.v3.connections.iterate)({}, options))
      ]) {
        const error = await expectError(call(), Client.InvalidArgumentError)
        assert.strictEqual(error.field, "options")
      }
    }
    const unreadable = await expectError(unsafe(client.legacy.login)(throwing("code")), Client.InvalidArgumentError)
    assert.strictEqual(unreadable.field, "arguments")
    assert.strictEqual((await expectError(unsafe(client.legacy.setUserToken)(proxy), Client.InvalidArgumentError)).field, "token")
    assert.strictEqual((await expectError(unsafe(client.legacy.authorizationUrl)({}), Client.InvalidArgumentError)).field, "permissions")
    await client.close()
  })

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
    for (const httpClient of [1, {}, "fetch"]) {
      const error = thrown(() => Client.createClient({ clientId: "id", clientSecret, origin: "http://127.0.0.1:1", httpClient: httpClient as never }))
      assert.instanceOf(error, Client.InvalidArgumentError, String(httpClient))
      assert.strictEqual((error as Client.InvalidArgumentError).field, "httpClient")
    }
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

  const legacyPaths = {
    "odometer-traveleddistance": "/odometer",
    "location-preciselocation": "/location",
    "vehicleidentification-vin": "/vin",
    "internalcombustionengine-oillife": "/engine/oil",
    "wheel-tirepressures": "/tires/pressure"
  } as const

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
      let denied = 0
      for (const vehicleId of vehicles) {
        for (const [code, legacyRead, migratedRead] of reads) {
          const what = `${vehicleId} ${code} (${unitSystem})`
          const status = sim.data.signalStatus(vehicleId, code)
          const permission = LegacyEndpoints[legacyPaths[code]].permission
          if (!sim.data.connectionOf(vehicleId)!.permissions.includes(permission)) {
            // the connection lacks the read's permission: both are refused (but a BEV's oil life, never read)
            await expectError(legacyRead(vehicleId), Client.PermissionDeniedError)
            if (status !== undefined) await expectError(migratedRead(vehicleId), Client.PermissionDeniedError)
            denied++
            continue
          }
          const old = await legacyRead(vehicleId)
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
      assert.strictEqual(same + failed + denied, vehicles.length * 5)
      assert.isTrue(same >= vehicles.length * 2, `${same} compared, ${failed} failed signals, ${denied} denied`)
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

  it("no secret in the errors above", () => {
    assert.isTrue(errorsSeen.length >= 10, `${errorsSeen.length} errors`)
    assertNoSecretIn(errorsSeen, new Set([clientSecret, ...proxy.secrets()]))
  })
})
