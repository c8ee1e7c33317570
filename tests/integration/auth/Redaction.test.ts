import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, Option, Redacted, References, Tracer } from "effect"
import { HttpClient } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenExchange from "@connected-vehicle/auth/TokenExchange"
import { TokenStore } from "@connected-vehicle/auth/TokenStore"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import { authorize, loopback, redirectUri, userWithVehicle } from "./utils.ts"

describe("secrets never leak", () => {
  it.live("no token or secret in any log line, span attribute or error message of a failing request", () => {
    const { around, lines, spans, texts: captured } = capture()
    return Effect.gen(function*() {
      const sim = yield* Simulator
      const store = yield* TokenStore
      const secrets = new Set<string>([Redacted.value(sim.clientSecret)])
      secrets.add(Redacted.value(TokenExchange.basicCredential(sim.clientId, sim.clientSecret)).slice("Basic ".length))
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
      assert.strictEqual(reasonOf(error)._tag, "Server")

      // what was captured actually covers the exchange
      assert.isTrue(lines.some((l) => l.includes("retrying")))
      assert.isTrue(lines.some((l) => l.includes("replaying after 401")))
      assert.isTrue(spans.some((s) => s.name === "connected-vehicle.legacy.vin"))
      assert.isTrue(spans.some((s) => s.name === "connected-vehicle.oauth.token"))
      const httpSpan = spans.find((s) => s.attributes.has("http.request.header.authorization"))
      assert.strictEqual(httpSpan?.attributes.get("http.request.header.authorization"), "<redacted>")

      const texts = [
        ...captured(),
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
      // logs at every level, every span, and every header recorded on the HttpClient spans (`httpSpans`)
      around,
      // outermost: the simulator (the server side) is built without the capture
      Effect.provide(loopback({ retry: { initialDelay: 5, maxAttempts: 3 }, httpSpans: true }))
    )
  })
})

/** A `Logger` and a `Tracer` that keep everything, and the texts to search. */
const capture = () => {
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
  const texts = () => [
    ...lines,
    ...spans.map((s) =>
      JSON.stringify({
        name: s.name,
        attributes: [...s.attributes],
        events: s.events,
        status: String(s.status._tag === "Ended" ? s.status.exit : "")
      })
    )
  ]
  const around = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.provide(Logger.layer([logger])),
      Effect.provideService(References.MinimumLogLevel, "All"),
      Effect.provideService(Tracer.Tracer, tracer),
      Effect.provideService(HttpClient.TracerHeaderFilter, () => true)
    )
  return { lines, spans, texts, around }
}

const describeError = (error: unknown) => [
  error instanceof Error ? error.message : "",
  String(error),
  JSON.stringify(error)
]

describe("secrets never leak when the token endpoint fails", () => {
  it.live("OAuthError (code exchange, bad client secret) and CredentialsError (refused refresh, 500 on refresh)", () => {
    const { around, spans, texts } = capture()
    return Effect.gen(function*() {
      const sim = yield* Simulator
      const store = yield* TokenStore
      const { userId, vehicleId } = yield* userWithVehicle
      const secrets = new Set<string>([Redacted.value(sim.clientSecret)])
      secrets.add(Redacted.value(TokenExchange.basicCredential(sim.clientId, sim.clientSecret)).slice("Basic ".length))
      const errors: Array<unknown> = []

      const run = Effect.gen(function*() {
        // 1. the code exchange with a wrong redirect URI: OAuthError invalid_grant
        const code = yield* authorize(userId).pipe(
          Effect.provideService(Tracer.Tracer, Tracer.make({ span: (options) => new Tracer.NativeSpan(options) }))
        )
        secrets.add(code)
        const wrongRedirect = yield* Effect.flip(TokenExchange.exchangeCode({ code, redirectUri: "https://other.example/cb" }))
        assert.strictEqual(reasonOf(wrongRedirect)._tag, "OAuth")
        errors.push(wrongRedirect)

        // 2. a wrong client secret: OAuthError invalid_client (401); the wrong secret is a secret too
        const wrongSecret = Redacted.make("wrong-client-secret-0123456789")
        secrets.add(Redacted.value(wrongSecret))
        secrets.add(Redacted.value(TokenExchange.basicCredential(sim.clientId, wrongSecret)).slice("Basic ".length))
        const badClient = yield* Effect.flip(TokenExchange.clientCredentials().pipe(
          Effect.provide(OAuthConfig.layer({ clientId: sim.clientId, clientSecret: wrongSecret }))
        ))
        assert.strictEqual(reasonOf(badClient)._tag, "OAuth")
        assert.strictEqual((badClient as ConnectedVehicleError).status, 401)
        errors.push(badClient)

        // 3. a refused refresh through Credentials: CredentialsError (400 invalid_grant)
        const token = yield* Session.login(userId, { code: yield* authorize(userId), redirectUri })
        secrets.add(Redacted.value(token.accessToken))
        secrets.add(Redacted.value(token.refreshToken!))
        const revoked = "revoked-refresh-token-0123456789"
        secrets.add(revoked)
        // an expired access token (the store's view) with a revoked refresh token
        yield* store.set(userId, { ...token, expiresAt: 0, refreshToken: Redacted.make(revoked) })
        const legacyCall = Effect.gen(function*() {
          const legacy = yield* Transport.client(LegacyApi, "legacy")
          return yield* legacy.vin({ params: { id: vehicleId } })
        }).pipe(Effect.provide(Session.layerUser(userId)))
        const refused = yield* Effect.flip(legacyCall)
        assert.strictEqual(reasonOf(refused)._tag, "Credentials")
        errors.push(refused)

        // 4. the token endpoint answers 500 to every refresh: CredentialsError with status 500
        yield* store.set(userId, { ...token, expiresAt: 0 })
        yield* sim.injectFaults({ path: "/oauth/token", faults: Array(5).fill({ _tag: "Status", status: 500 }) })
        const failed = yield* Effect.flip(legacyCall)
        assert.strictEqual(reasonOf(failed)._tag, "Credentials")
        assert.strictEqual((failed as ConnectedVehicleError).status, 500)
        errors.push(failed)

        for (const error of errors) yield* Effect.logError("token endpoint failed", error)
      })
      yield* around(run)

      assert.isTrue(spans.filter((s) => s.name === "connected-vehicle.oauth.token").length >= 4)
      assert.isTrue(spans.some((s) => s.name === "connected-vehicle.auth.renew"))
      const all = [...texts(), ...errors.flatMap(describeError)]
      assert.isTrue(all.some((t) => t.includes("invalid_grant")))
      assert.isTrue(all.some((t) => t.includes("invalid_client")))
      assert.strictEqual(secrets.size, 8)
      for (const secret of secrets) {
        for (const text of all) {
          assert.isFalse(text.includes(secret), `a secret leaked into: ${text.slice(0, 300)}`)
        }
      }
    }).pipe(Effect.provide(loopback({ retry: { initialDelay: 5, maxAttempts: 3 }, httpSpans: true })))
  })
})
