import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, Option, Redacted, References, Tracer } from "effect"
import { HttpClient } from "effect/http"
import * as Session from "@connected-vehicle/auth/Session"
import { basicCredential } from "@connected-vehicle/auth/TokenExchange"
import { TokenStore } from "@connected-vehicle/auth/TokenStore"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as Transport from "@connected-vehicle/transport/Transport"
import { authorize, loopback, redirectUri, userWithVehicle } from "./utils.ts"

describe("secrets never leak", () => {
  it.live("no token or secret in any log line, span attribute or error message of a failing request", () => {
    const lines: Array<string> = []
    const spans: Array<Tracer.NativeSpan> = []
    const logger = Logger.make((options) => {
      lines.push(Logger.formatJson.log(options))
      lines.push(Logger.formatLogFmt.log(options))
    })
    const tracer = Tracer.make({
      span(options) {
        const span = new Tracer.NativeSpan(options)
        spans.push(span)
        return span
      }
    })
    return Effect.gen(function*() {
      const sim = yield* Simulator
      const store = yield* TokenStore
      const secrets = new Set<string>([Redacted.value(sim.clientSecret)])
      secrets.add(Redacted.value(basicCredential(sim.clientId, sim.clientSecret)).slice("Basic ".length))
      const remember = Effect.gen(function*() {
        for (const key of [userId]) {
          const token = Option.getOrUndefined(yield* store.get(key))
          if (token === undefined) continue
          secrets.add(Redacted.value(token.accessToken))
          if (token.refreshToken) secrets.add(Redacted.value(token.refreshToken))
        }
      })
      const { userId, vehicleId } = yield* userWithVehicle
      // the consent step is the user's browser, not the SDK: keep it out of the capture
      const code = yield* authorize(userId).pipe(
        Effect.provideService(Tracer.Tracer, Tracer.make({ span: (options) => new Tracer.NativeSpan(options) }))
      )
      secrets.add(code)
      yield* Session.login(userId, { code, redirectUri })
      yield* remember

      // a rejected token: 401, refresh, replay
      const token = Option.getOrThrow(yield* store.get(userId))
      yield* store.set(userId, { ...token, accessToken: Redacted.make("bogus-access-token-0123456789") })
      secrets.add("bogus-access-token-0123456789")

      const error = yield* Effect.gen(function*() {
        const legacy = yield* Transport.client(LegacyApi, "legacy")
        yield* legacy.odometer({ params: { id: vehicleId } })
        yield* remember
        // then a request failing after retries
        yield* sim.injectFaults({ path: `/v2.0/vehicles/${vehicleId}/vin`, faults: Array(5).fill({ _tag: "Status", status: 500 }) })
        return yield* Effect.flip(legacy.vin({ params: { id: vehicleId } }))
      }).pipe(Effect.provide(Session.layerUser(userId)))
      yield* Effect.logError("request failed", error)
      assert.strictEqual(error._tag, "ServerError")

      // what was captured actually covers the exchange
      assert.isTrue(lines.some((l) => l.includes("retrying")))
      assert.isTrue(lines.some((l) => l.includes("replaying after 401")))
      assert.isTrue(spans.some((s) => s.name === "connected-vehicle.legacy.vin"))
      assert.isTrue(spans.some((s) => s.name === "connected-vehicle.oauth.token"))
      const httpSpan = spans.find((s) => s.attributes.has("http.request.header.authorization"))
      assert.strictEqual(httpSpan?.attributes.get("http.request.header.authorization"), "<redacted>")

      const texts = [
        ...lines,
        ...spans.map((s) => JSON.stringify({ name: s.name, attributes: [...s.attributes], events: s.events, status: String(s.status._tag === "Ended" ? s.status.exit : "") })),
        error.message,
        String(error),
        JSON.stringify(error)
      ]
      assert.isTrue(secrets.size >= 6)
      for (const secret of secrets) {
        for (const text of texts) {
          assert.isFalse(text.includes(secret), `a secret leaked into: ${text.slice(0, 300)}`)
        }
      }
    }).pipe(
      Effect.provide(Logger.layer([logger])),
      Effect.provideService(References.MinimumLogLevel, "All"),
      Effect.provideService(Tracer.Tracer, tracer),
      // record every header on the HttpClient spans, to prove the redaction
      Effect.provideService(HttpClient.TracerHeaderFilter, () => true),
      // outermost: the simulator (the server side) is built without the capture
      Effect.provide(loopback({ retry: { initialDelayMillis: 5, maxAttempts: 3 } }))
    )
  })
})
