/**
 * `FleetError`: one error whose `reason` is a tagged union, matched by
 * `catchTag("FleetError")` and `catchReason`, its `isRetryable` and message
 * the reason's, and encodable (it crosses the cluster as an entity's error).
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Schema } from "effect"
import * as FleetConfig from "@connected-vehicle/fleet/FleetConfig"
import {
  Cluster,
  Configuration,
  DatabaseUnavailable,
  DeadLetterNotFound,
  DeadLetterStore,
  FleetError,
  isFleetError,
  QueueUnavailable,
  type Reason,
  RedisUnavailable
} from "@connected-vehicle/fleet/FleetError"

const refused = (env: Record<string, string>) =>
  Effect.flip(FleetConfig.read.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))))

describe("FleetError", () => {
  it("an unavailable store is retryable; a configuration, a missing dead letter or a runner that did not start is not", () => {
    const cause = new Error("connect ECONNREFUSED 127.0.0.1:5432")
    const reasons: ReadonlyArray<[Reason, boolean]> = [
      [new Configuration({ description: "bad", variables: ["FLEET_STORAGE"] }), false],
      [new DatabaseUnavailable({ description: "down", cause }), true],
      [new QueueUnavailable({ description: "down", cause }), true],
      [new DeadLetterStore({ description: "down", cause }), true],
      [new DeadLetterNotFound({ eventId: "evt_1" }), false],
      [new Cluster({ description: "port taken", cause }), false],
      [new RedisUnavailable({ description: "no answer" }), true]
    ]
    for (const [reason, retryable] of reasons) {
      const error = new FleetError({ reason })
      assert.strictEqual(error._tag, "FleetError")
      assert.isTrue(isFleetError(error))
      assert.strictEqual(error.isRetryable, retryable, reason._tag)
      assert.strictEqual(error.message, `${reason._tag}: ${reason.description}`)
      assert.strictEqual(error.description, reason.description)
      assert.strictEqual(error.cause, reason)
    }
    assert.isFalse(isFleetError(new Error("FleetError")))
  })

  it.effect("catchTag(\"FleetError\") still catches it; catchReason matches one reason and lets the others through", () =>
    Effect.gen(function*() {
      const fail = (reason: Reason) => Effect.fail(new FleetError({ reason }))
      assert.strictEqual(yield* fail(new RedisUnavailable({ description: "x" })).pipe(Effect.catchTag("FleetError", (e) => Effect.succeed(e.reason._tag))), "RedisUnavailable")
      const replay = (reason: Reason) =>
        fail(reason).pipe(Effect.catchReason("FleetError", "DeadLetterNotFound", (reason) => Effect.succeed(reason.eventId)))
      assert.strictEqual(yield* replay(new DeadLetterNotFound({ eventId: "evt_7" })), "evt_7")
      const other = yield* Effect.flip(replay(new DeadLetterStore({ description: "down" })))
      assert.strictEqual(other.reason._tag, "DeadLetterStore")
    }))

  it.effect("a Configuration of the environment names the variables at fault", () =>
    Effect.gen(function*() {
      const invalid = yield* refused({ FLEET_QUEUE_RETENTION: "an hour" })
      assert.deepStrictEqual(invalid.reason._tag === "Configuration" && invalid.reason.variables, ["FLEET_QUEUE_RETENTION"])
      const both = yield* refused({ FLEET_STORAGE: "memory", REDIS_URL: "redis://:hush@h:6379" })
      assert.deepStrictEqual(both.reason._tag === "Configuration" && both.reason.variables, ["FLEET_STORAGE", "REDIS_URL"])
      const shorter = yield* refused({ FLEET_QUEUE_RETENTION: "2 days", FLEET_APPLIED_RETENTION: "1 day" })
      assert.deepStrictEqual(shorter.reason._tag === "Configuration" && shorter.reason.variables, [
        "FLEET_APPLIED_RETENTION",
        "FLEET_QUEUE_RETENTION"
      ])
    }))

  it("encodes and decodes with its reason (an entity's error crosses the cluster)", () => {
    const codec = Schema.toCodecJson(FleetError)
    for (const reason of [new DeadLetterNotFound({ eventId: "evt_2" }), new DatabaseUnavailable({ description: "down", cause: new Error("refused") })]) {
      const decoded = Schema.decodeUnknownSync(codec)(JSON.parse(JSON.stringify(Schema.encodeSync(codec)(new FleetError({ reason })))))
      assert.instanceOf(decoded, FleetError)
      assert.strictEqual(decoded.reason._tag, reason._tag)
      assert.strictEqual(decoded.message, new FleetError({ reason }).message)
      assert.strictEqual(decoded.isRetryable, reason.isRetryable)
    }
  })
})
