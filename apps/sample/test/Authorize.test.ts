/** The login wait: a `Duration`, checked before anything listens; its timeout reported as a duration. */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit } from "effect"
import * as Authorize from "@connected-vehicle/sample/Authorize"
import { describe as describeError } from "@connected-vehicle/sample/Report"

describe("Authorize", () => {
  it.effect("a timeout that is not a positive, finite duration is an InvalidArgument naming it, before any listener", () =>
    Effect.gen(function*() {
      const timeouts: ReadonlyArray<Duration.Input> = [0, -5, Number.NaN, "Infinity", "soon" as Duration.Input]
      for (const timeout of timeouts) {
        const run = Authorize.run({ key: "k", port: 0, follow: false, timeout, onConsentUrl: () => Effect.void })
        // the check comes first: none of the flow's services is reached
        const exit = yield* Effect.exit(run as Effect.Effect<Authorize.Authorization, unknown>)
        assert.isTrue(Exit.isFailure(exit))
        const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
        assert.strictEqual(error?._tag, "Fail")
        const failure = error?._tag === "Fail" ? error.error as { _tag: string; field: string } : undefined
        assert.strictEqual(failure?._tag, "InvalidArgument")
        assert.strictEqual(failure?.field, "timeout")
      }
    }))

  it("LoginTimeout carries a Duration; its message and report say it", () => {
    const error = new Authorize.LoginTimeout({ timeout: Duration.seconds(90) })
    assert.match(error.message, /within 90 s/)
    assert.strictEqual(describeError(error)["timeout"], "1m 30s")
    assert.strictEqual(Duration.toSeconds(Authorize.defaultTimeout), 120)
  })
})
