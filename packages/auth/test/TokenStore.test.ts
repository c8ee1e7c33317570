import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { makeMemory } from "@connected-vehicle/auth/TokenStore"
import type { Token } from "@connected-vehicle/auth/TokenStore"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"

const token: Token = { accessToken: Redacted.make("access"), expiresAt: 1, refreshToken: undefined, refreshExpiresAt: undefined }

const throwing = new Proxy({}, {
  get: () => {
    throw new Error("boom")
  }
})

// what a caller may pass where a key is typed `string`
const badKeys: ReadonlyArray<readonly [unknown, string]> = [
  [null, "Expected a string, got null"],
  [undefined, "Expected a string, got undefined"],
  [42, "Expected a string, got number"],
  [Symbol("k"), "Expected a string, got symbol"],
  [throwing, "Expected a string, got object"],
  [{ toString: () => "user" }, "Expected a string, got object"],
  ["", "Expected a non-empty string"],
  ["u".repeat(100_000), "Expected at most 1024 characters, got 100000"],
  ["user\n42", "Expected a string without control characters"],
  ["user\ud800", "Expected well-formed Unicode (a lone surrogate has no UTF-8 form)"]
]

describe("TokenStore.makeMemory", () => {
  it.effect("a key that is not a store key is an InvalidArgument naming key, for get, set and remove; nothing stored", () =>
    Effect.gen(function*() {
      const store = yield* makeMemory
      type Loose = (key: unknown, token?: unknown) => Effect.Effect<unknown, unknown>
      for (const [key, issue] of badKeys) {
        for (const method of [store.get, store.set, store.remove] as ReadonlyArray<Loose>) {
          const error = yield* Effect.flip(method(key, token))
          assert.instanceOf(error, InvalidArgument)
          assert.strictEqual((error as InvalidArgument).field, "key")
          assert.strictEqual((error as InvalidArgument).message, `key: ${issue}`)
        }
      }
      // a token set under `undefined` would be found under "undefined"
      assert.isTrue(Option.isNone(yield* store.get("undefined")))
    }))

  it.effect("usual keys are stored: ids, emails, tenant paths, non-ASCII, 1024 characters", () =>
    Effect.gen(function*() {
      const store = yield* makeMemory
      for (const key of ["application", "user:1234", "jane.doe+cv@example.com", "tenant/a/user 7", "usér-ø-😀", "k".repeat(1024)]) {
        yield* store.set(key, token)
        assert.strictEqual(Option.getOrThrow(yield* store.get(key)), token)
        yield* store.remove(key)
        assert.isTrue(Option.isNone(yield* store.get(key)))
      }
    }))
})
