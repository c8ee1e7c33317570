import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted, Semaphore } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { NodeHttpClient } from "@effect/platform-node"
import { AuthorizationApi, CompatibilityApi, LegacyApi, ManagementApi, VehicleApi } from "@connected-vehicle/schema/Api"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import type { Fault, RequestLogEntry } from "@connected-vehicle/simulator/Simulator"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import { appToken, flipReason, loopback } from "./utils.ts"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"

/**
 * A token source that renews on 401 (single flight): what `@connected-vehicle/auth`
 * sessions do, written here because auth depends on this package.
 */
const renewing = <R>(fetch: Effect.Effect<Redacted.Redacted<string>, unknown, R>) =>
  Effect.gen(function*() {
    const renew = Effect.provideContext(Effect.orDie(fetch), yield* Effect.context<R>())
    let current = yield* renew
    const issued: Array<string> = [Redacted.value(current)]
    const lock = yield* Semaphore.make(1)
    const service: Credentials["Service"] = {
      token: Effect.sync(() => current),
      refresh: (rejected) =>
        lock.withPermits(1)(Effect.suspend(() => {
          if (Redacted.value(rejected) !== Redacted.value(current)) return Effect.succeed(true)
          return Effect.map(renew, (next) => {
            current = next
            issued.push(Redacted.value(next))
            return true
          })
        }))
    }
    return { service, issued }
  })

const redirectUri = "https://app.example/callback"

/** A user's access token through the simulator's consent step and the code grant. */
const userTokens = (userId: string) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    const oauth = yield* Transport.publicClient(AuthorizationApi, "oauth")
    const basic = `Basic ${Buffer.from(`${sim.clientId}:${Redacted.value(sim.clientSecret)}`).toString("base64")}`
    const authorize = new URL(`${sim.url}/oauth/authorize`)
    for (
      const [k, v] of Object.entries({
        response_type: "code",
        client_id: sim.clientId,
        redirect_uri: redirectUri,
        scope: "read_odometer read_vin",
        login_hint: userId
      })
    ) authorize.searchParams.set(k, v)
    const consent = yield* (yield* HttpClient.HttpClient).execute(HttpClientRequest.get(authorize.toString()))
    const code = new URL(consent.headers["location"]!).searchParams.get("code")!
    const first = yield* oauth.token({
      headers: { authorization: basic },
      payload: { grant_type: "authorization_code", code, redirect_uri: redirectUri }
    })
    let refreshToken = first.value.refresh_token!
    const refresh = Effect.map(
      Effect.suspend(() =>
        oauth.token({
        headers: { authorization: basic },
          payload: { grant_type: "refresh_token", refresh_token: Redacted.value(refreshToken) }
        })
      ),
      ({ value }) => {
        if (value.refresh_token !== undefined) refreshToken = value.refresh_token
        return value.access_token
      }
    )
    return { first: first.value.access_token, refresh }
  })

interface Call {
  readonly label: string
  readonly method: string
  /** Path and query as the simulator logs them (unique per call). */
  readonly path: string
  readonly query: string
  readonly faults?: ReadonlyArray<Fault>
  readonly run: Effect.Effect<Transport.Result<any>, { readonly _tag: string }>
  /** The value belongs to this call. */
  readonly check?: (value: any) => void
  /** The expected outcome: a success, or an error tag with its status. */
  readonly expect: { readonly _tag: "Success" } | { readonly _tag: string; readonly status?: number }
  /** Requests the simulator should log for this call. */
  readonly attempts: number
}

const fast = { timeout: 15_000, retry: { initialDelay: 5, maxDelay: 20, maxAttempts: 3 } }

// on every HttpClient the SDK ships or documents: one simulator each, so the
// three run at once (each round waits for its stalled body's 2 s timeout)
const clients = [
  ["UndiciHttpClient.layer()", UndiciHttpClient.layer()],
  ["NodeHttpClient.layerUndici", NodeHttpClient.layerUndici],
  [
    "FetchHttpClient (redirect: manual)",
    FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { redirect: "manual" })))
  ]
] as const

describe.concurrent.each(clients)("one transport, many concurrent calls (%s)", (_, httpClient) => {
  it.live("every result and every error belongs to its own request", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const origin = sim.url
      // users with vehicles, their vehicles and signal codes
      const owners = sim.data.users
        .map((u) => ({ userId: u.id, vehicles: sim.data.vehiclesOf(u.id) }))
        .filter((o) => o.vehicles.length > 0)
        .slice(0, 3)
      assert.isTrue(owners.length >= 2)

      const app = yield* renewing(appToken)
      const userSession = yield* userTokens(owners[0]!.userId)
      let userFirst = true
      const user = yield* renewing(Effect.suspend(() => {
        if (userFirst) {
          userFirst = false
          return Effect.succeed(userSession.first)
        }
        return userSession.refresh
      }))
      const withApp = Effect.provideService(Credentials, app.service)
      const signals = yield* Transport.client(VehicleApi, "signals").pipe(withApp)
      const connections = yield* Transport.client(VehicleApi, "connections").pipe(withApp)
      const webhooks = yield* Transport.client(ManagementApi, "webhooks").pipe(withApp)
      const compatibility = yield* Transport.publicClient(CompatibilityApi, "compatibility")
      const legacy = yield* Transport.client(LegacyApi, "legacy").pipe(Effect.provideService(Credentials, user.service))

      const calls: Array<Call> = []
      // v3 signals of several users' vehicles, several codes each
      let s = 0
      for (const { userId, vehicles } of owners) {
        for (const vehicleId of vehicles.slice(0, 3)) {
          for (const code of sim.data.vehicle(vehicleId)!.signalCodes.slice(0, 3)) {
            const n = s++
            const faults: Array<Fault> | undefined = n === 0
              ? [{ _tag: "Status", status: 500 }]
              : n === 1
              ? [{ _tag: "Status", status: 429, retryAfter: "1" }]
              : n === 2
              ? [{ _tag: "Status", status: 401 }]
              : n === 3
              ? [{ _tag: "MalformedJson" }]
              : undefined
            calls.push({
              label: `signals.get ${vehicleId} ${code}`,
              method: "GET",
              path: `/v3/vehicles/${vehicleId}/signals/${code}`,
              query: "",
              ...(faults ? { faults } : {}),
              run: signals.get({ params: { vehicleId, signalCode: code }, headers: { "sc-user-id": userId } }, fast),
              check: (value) => {
                assert.strictEqual(value.data.attributes.code, code)
                assert.include(JSON.stringify(value), `/vehicles/${vehicleId}/signals/${code}`)
              },
              expect: n === 1
                ? { _tag: "RateLimit", status: 429 }
                : n === 3
                ? { _tag: "InvalidResponse", status: 200 }
                : { _tag: "Success" },
              attempts: n === 0 || n === 2 ? 2 : 1
            })
          }
        }
      }
      // a code the vehicle does not have, and a user who does not own the vehicle
      const [v0] = owners[0]!.vehicles
      calls.push({
        label: "signals.get unknown code",
        method: "GET",
        path: `/v3/vehicles/${v0}/signals/no-such-code`,
        query: "",
        run: signals.get({ params: { vehicleId: v0!, signalCode: "no-such-code" }, headers: { "sc-user-id": owners[0]!.userId } }),
        expect: { _tag: "NotFound", status: 404 },
        attempts: 1
      })
      // connections by id
      sim.data.connectionIds({ offset: 0, limit: 5 }).forEach((connectionId, i) =>
        calls.push({
          label: `connections.get ${connectionId}`,
          method: "GET",
          path: `/v3/connections/${connectionId}`,
          query: "",
          ...(i === 0
            ? { faults: Array.from({ length: 3 }, () => ({ _tag: "Drop" }) as const) }
            : i === 1
            ? { faults: [{ _tag: "StallBody" }] }
            : {}),
          run: connections.get({ params: { connectionId } }, i === 1 ? { timeout: 2_000, retry: { maxAttempts: 1 } } : fast),
          check: (value) => assert.strictEqual(value.data.id, connectionId),
          expect: i === 0 ? { _tag: "Connection" } : i === 1 ? { _tag: "Timeout", status: 200 } : { _tag: "Success" },
          attempts: i === 0 ? 3 : 1
        })
      )
      // webhook list pages (distinct queries)
      for (const page of [1, 2, 3]) {
        calls.push({
          label: `webhooks.list page ${page}`,
          method: "GET",
          path: "/v3/webhooks",
          query: `page=${page}&pageSize=1`,
          run: webhooks.list({ query: { page, pageSize: 1 } }, fast),
          check: (value) => assert.strictEqual(value.meta.pageNumber, page),
          expect: { _tag: "Success" },
          attempts: 1
        })
      }
      // compatibility (public)
      for (const region of ["US", "CA", "EUROPE"] as const) {
        calls.push({
          label: `compatibility ${region}`,
          method: "GET",
          path: "/v3/compatible-vehicles",
          query: `filter%5Bregion%5D=${region}`,
          run: compatibility.list({ query: { "filter[region]": region } }, fast),
          check: (value) => assert.isTrue(value.data.every((e: any) => e.attributes.region === region)),
          expect: { _tag: "Success" },
          attempts: 1
        })
      }
      // legacy reads of the user's vehicles with the user's token
      owners[0]!.vehicles.slice(0, 4).forEach((id, i) => {
        calls.push({
          label: `legacy.vin ${id}`,
          method: "GET",
          path: `/v2.0/vehicles/${id}/vin`,
          query: "",
          ...(i === 1 ? { faults: [{ _tag: "Status", status: 500 }, { _tag: "Status", status: 500 }] } : {}),
          run: legacy.vin({ params: { id } }, fast),
          check: (value) => assert.strictEqual(value.vin, sim.data.vehicle(id)!.vin),
          expect: { _tag: "Success" },
          attempts: i === 1 ? 3 : 1
        })
        calls.push({
          label: `legacy.odometer ${id}`,
          method: "GET",
          path: `/v2.0/vehicles/${id}/odometer`,
          query: "",
          ...(i === 0 ? { faults: [{ _tag: "Status", status: 401 }] } : {}),
          run: legacy.odometer({ params: { id } }, fast),
          check: (value) => assert.isTrue(value.distance >= 0),
          expect: { _tag: "Success" },
          attempts: i === 0 ? 2 : 1
        })
      })
      // the case a reviewer saw: odometer of a vehicle that is not there, with an id that needs encoding
      calls.push({
        label: "legacy.odometer missing",
        method: "GET",
        path: "/v2.0/vehicles/no%20such%3Fcar/odometer",
        query: "",
        run: legacy.odometer({ params: { id: "no such?car" } }, fast),
        expect: { _tag: "NotFound", status: 404 },
        attempts: 1
      })

      // every (path, query) is unique, so that the log tells the calls apart
      assert.strictEqual(new Set(calls.map((c) => `${c.path}?${c.query}`)).size, calls.length)
      // the same calls in a few rounds, each with its faults again (and one more renewal of each token)
      for (const round of [1, 2, 3]) {
        for (const call of calls) {
          if (call.faults) yield* sim.injectFaults({ path: call.path, method: "GET", faults: call.faults })
        }
        yield* sim.resetLog

        const exits = yield* Effect.forEach(calls, (call) => Effect.exit(call.run), { concurrency: "unbounded" })

        const log = (yield* sim.requests).filter((e) => !e.path.startsWith("/oauth/"))
        const secrets = [
          Redacted.value(sim.clientSecret),
          ...app.issued,
          ...user.issued,
          Redacted.value(userSession.first)
        ]
        const failures: Array<string> = []
        exits.forEach((exit, i) => {
          const call = calls[i]!
          const url = `${origin}${call.path}${call.query === "" ? "" : `?${call.query}`}`
          const mine = log.filter((e) => e.path === call.path && e.query === call.query)
          try {
            assert.strictEqual(mine.length, call.attempts, "requests logged")
            if (Exit.isSuccess(exit)) {
              assert.strictEqual(call.expect._tag, "Success")
              call.check?.(exit.value.value)
              assert.strictEqual(exit.value.status, 200)
              const entry = log.find((e) => e.requestId === exit.value.requestId)
              assert.isDefined(entry, "the result's request id is in the log")
              assert.strictEqual(entry!.path, call.path)
              assert.strictEqual(entry!.query, call.query)
            } else {
              const error = exit.cause.reasons.map((r) => (r._tag === "Fail" ? reasonOf(r.error) : r)).at(0) as any
              assert.strictEqual(error?._tag, call.expect._tag, String(error))
              assert.strictEqual(error.method, call.method)
              assert.strictEqual(error.url, url)
              assert.notInclude(error.url, "/:")
              if ("status" in call.expect) assert.strictEqual(error.status, call.expect.status)
              if (error.requestId !== undefined) {
                const entry = log.find((e) => e.requestId === error.requestId)
                assert.isDefined(entry, "the error's request id is in the log")
                assert.strictEqual(entry!.path, call.path)
                assert.strictEqual(entry!.query, call.query)
                assert.strictEqual(mine.at(-1)!.requestId, error.requestId)
              } else {
                assert.strictEqual(call.expect._tag, "Connection")
              }
              const text = `${JSON.stringify(error)} ${error.message} ${String(error)}`
              for (const secret of secrets) assert.notInclude(text, secret)
            }
          } catch (e) {
            failures.push(`round ${round}, ${call.label}: ${(e as Error).message} ${JSON.stringify(mine.map((m) => m.status))} ${String(Exit.isFailure(exit) ? exit.cause : "")}`)
          }
        })
        assert.deepStrictEqual(failures, [])
        // every logged request was made by one of the calls, and the tokens were renewed once each
        const made = new Set(calls.map((c) => `${c.path}?${c.query}`))
        assert.isTrue(log.every((e: RequestLogEntry) => made.has(`${e.path}?${e.query}`)))
        assert.strictEqual(log.length, calls.reduce((n, c) => n + c.attempts, 0))
        assert.strictEqual(app.issued.length, 1 + round)
        assert.strictEqual(user.issued.length, 1 + round)
      }
    }).pipe(Effect.provide(Layer.merge(loopback(undefined, httpClient), httpClient))), { timeout: 60_000 })
})

/** The transport of `loopback` with a `transformClient`. */
const loopbackWith = (transformClient: (client: HttpClient.HttpClient) => HttpClient.HttpClient) =>
  Layer.effect(Transport.Transport, Transport.make({ transformClient })).pipe(Layer.provideMerge(loopback()))

describe("the URL of an error is the call's own", () => {
  it.live("an attempt that times out before its request reached the pipeline names its own URL, not the template", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const ids = ["car-1", "car 2", "car?3", "car-4", "car-5", "car-6"]
      const errors = yield* Effect.forEach(
        ids,
        (id) => flipReason(legacy.odometer({ params: { id } }, { timeout: 30, retry: { maxAttempts: 2, initialDelay: 1 } })),
        { concurrency: "unbounded" }
      )
      errors.forEach((error, i) => {
        assert.strictEqual(error._tag, "Timeout")
        assert.strictEqual((error as { url: string }).url, `${sim.url}/v2.0/vehicles/${encodeURIComponent(ids[i]!)}/odometer`)
      })
      // nothing was sent
      assert.strictEqual((yield* sim.requests).filter((e) => e.path.startsWith("/v2.0/")).length, 0)
    }).pipe(
      Effect.provide(
        // a hook before the transport's pipeline that takes longer than the timeout
        loopbackWith((client) => HttpClient.mapRequestInputEffect(client, (request) => Effect.as(Effect.sleep(200), request)))
      ),
      Effect.provideService(Credentials, { token: Effect.succeed(Redacted.make("t")), refresh: () => Effect.succeed(false) })
    ))

  it.live("a URL replaced before the pipeline (a token URL elsewhere) is the URL of the error", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const transport = yield* Transport.Transport
      const elsewhere = `${sim.url}/elsewhere/token`
      const oauth = yield* Transport.publicClient(AuthorizationApi, "oauth").pipe(
        Effect.provideService(Transport.Transport, {
          ...transport,
          httpClient: HttpClient.mapRequestInput(transport.httpClient, HttpClientRequest.setUrl(elsewhere))
        })
      )
      const error = yield* flipReason(
        oauth.token({ headers: { authorization: "Basic eDp5" }, payload: { grant_type: "client_credentials" } })
      )
      assert.strictEqual((error as { url: string }).url, elsewhere)
      assert.strictEqual((error as { status: number }).status, 404)
      assert.notInclude(JSON.stringify(error), "eDp5")
      assert.strictEqual((yield* sim.requests).filter((e) => e.path === "/elsewhere/token").length, 1)
    }).pipe(Effect.provide(loopback())))

  it.live("a request sent from inside a transformClient hook does not become the call's request", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const signals = yield* Transport.client(VehicleApi, "signals")
      const error = yield* flipReason(
        signals.get({ params: { vehicleId: "v-1", signalCode: "no-such-code" }, headers: { "sc-user-id": "u-1" } }, {
          retry: { maxAttempts: 1 }
        })
      )
      assert.strictEqual((error as { url: string }).url, `${sim.url}/v3/vehicles/v-1/signals/no-such-code`)
      const logged = yield* sim.requests
      const own = logged.find((e) => e.path === "/v3/vehicles/v-1/signals/no-such-code")!
      assert.strictEqual((error as { requestId?: string }).requestId, own.requestId)
      assert.isDefined(logged.find((e) => e.path === "/v3/compatible-vehicles"))
    }).pipe(
      Effect.provide(Layer.unwrap(Effect.gen(function*() {
        // the hook runs after the pipeline: it sends a side request through the transport's own client
        const side = yield* Effect.succeed<{ client?: HttpClient.HttpClient }>({})
        const layer = loopbackWith((client) => {
          side.client = client
          return HttpClient.mapRequestEffect(client, (request) =>
            Effect.as(
              Effect.ignore(side.client!.execute(HttpClientRequest.get(request.url.replace(/\/v3\/.*$/, "/v3/compatible-vehicles")))),
              request
            ))
        })
        return layer
      }))),
      Effect.provideService(Credentials, { token: Effect.succeed(Redacted.make("t")), refresh: () => Effect.succeed(false) })
    ))
})
