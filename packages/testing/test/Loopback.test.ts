import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { CompatibilityApi } from "@connected-vehicle/schema/Api"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as Loopback from "@connected-vehicle/testing/Loopback"
import * as RequestLog from "@connected-vehicle/testing/RequestLog"
import * as Simulated from "@connected-vehicle/testing/Simulated"
import * as SignIn from "@connected-vehicle/testing/SignIn"

describe("Loopback", () => {
  it.live("the transport reaches the simulator on 127.0.0.1 over a real socket", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      assert.match(sim.url, /^http:\/\/127\.0\.0\.1:\d+$/)
      const compatibility = yield* Transport.publicClient(CompatibilityApi, "compatibility")
      const page = yield* compatibility.list()
      assert.isAbove(page.value.data.length, 0)
      assert.isAbove(yield* sim.connections, 0)
      assert.deepStrictEqual((yield* RequestLog.matching("/v3/compatible-vehicles")).map((e) => e.status), [200])
    }).pipe(Effect.provide(Loopback.layer({ httpClient: FetchHttpClient.layer }))))

  it.live("SignIn: an application token, and a user's code the transport exchanges", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* SignIn.applicationToken
      assert.isAbove(Redacted.value(token).length, 0)
      const code = yield* SignIn.authorizationCode(Simulated.busiestUser(sim.data), { scope: "read_odometer" })
      assert.isAbove(code.length, 0)
      assert.deepStrictEqual((yield* RequestLog.matching(/^\/oauth\//)).map((e) => [e.path, e.status]), [
        ["/oauth/token", 200],
        ["/oauth/authorize", 302]
      ])
    }).pipe(Effect.provide(Loopback.layer({ simulator: { seed: 7 } }))))

  it.live("SignIn.authorizationCode dies when the simulator refuses the consent", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(SignIn.authorizationCode("no-such-user"))
      assert.isTrue(Exit.isFailure(exit))
      // the redirect's OAuth error is said, not only its status
      if (Exit.isFailure(exit)) assert.match(String(Cause.squash(exit.cause)), /refused consent for no-such-user: 302 \w+: \S/)
    }).pipe(Effect.provide(Loopback.layer())))
})
