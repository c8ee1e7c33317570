/**
 * `CONNECTED_VEHICLE_CLIENT_SECRET` is read by the one rule of a secret given
 * as text (`secretText` of `@connected-vehicle/schema/Redaction`), as the
 * simulator and the sample read theirs: a value with a trailing space or CR
 * (an env file, a mounted secret) is the secret trimmed, so the token request
 * to the simulator over loopback succeeds (it was sent as written and answered
 * 401); one holding a control character is a `ConfigurationError` naming the
 * variable, never quoting it, and nothing is sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import { NodeHttpClient } from "@effect/platform-node"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as TokenExchange from "@connected-vehicle/auth/TokenExchange"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as Loopback from "@connected-vehicle/testing/Loopback"

const base = Loopback.layer({ httpClient: NodeHttpClient.layerUndici })

/** `OAuthConfig.layerConfig` with the simulator's client id and `secret(simulator's secret)` as the environment's secret. */
const fromEnvironment = (secret: (simulators: string) => string) =>
  Layer.unwrap(Effect.map(Effect.service(Simulator), (sim) =>
    OAuthConfig.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({
      env: { CONNECTED_VEHICLE_CLIENT_ID: sim.clientId, CONNECTED_VEHICLE_CLIENT_SECRET: secret(Redacted.value(sim.clientSecret)) }
    }))))))

describe("CONNECTED_VEHICLE_CLIENT_SECRET given as text", () => {
  for (const [what, pad] of [["a trailing space", (s: string) => `${s} `], ["a trailing CR", (s: string) => `${s}\r`], ["CRLF and a leading tab", (s: string) => `\t${s}\r\n`]] as const) {
    it.effect(`with ${what}: the secret trimmed, the client-credentials token request succeeds`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator
        const token = yield* TokenExchange.clientCredentials().pipe(Effect.provide(fromEnvironment(pad)))
        assert.isTrue(Redacted.isRedacted(token.accessToken))
        assert.deepStrictEqual((yield* sim.requests).map((e) => `${e.method} ${e.path} ${e.status}`), ["POST /oauth/token 200"])
      }).pipe(Effect.provide(base)))
  }

  it.effect("with a control character: a ConfigurationError naming the variable, never quoting the secret; nothing sent", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const error = yield* Effect.flip(TokenExchange.clientCredentials().pipe(Effect.provide(fromEnvironment((s) => `${s}\u001b[2J`))))
      assert.strictEqual(error._tag, "ConfigurationError")
      assert.include(error.message, "CONNECTED_VEHICLE_CLIENT_SECRET")
      assert.include(error.message, "holds a control character")
      assert.notInclude(error.message, Redacted.value(sim.clientSecret))
      assert.deepStrictEqual(yield* sim.requests, [])
    }).pipe(Effect.provide(base)))
})
