import { assert, describe, it } from "@effect/vitest"
import { runInNewContext } from "node:vm"
import { Effect } from "effect"
import type { HttpClientResponse } from "effect/http"
import * as Hooks from "../src/internal/hooks.ts"

const response = {} as HttpClientResponse.HttpClientResponse

/** The unhandled rejections while `effect` runs and a few ticks after. */
const unhandledDuring = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const seen: Array<unknown> = []
    const listener = (reason: unknown) => void seen.push(reason)
    process.on("unhandledRejection", listener)
    yield* Effect.ensuring(
      Effect.andThen(effect, Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))),
      Effect.sync(() => process.off("unhandledRejection", listener))
    )
    return seen
  })

describe("onResponse hooks", () => {
  it.live("a hook that returns a rejected promise (an async hook from JavaScript) is ignored, its rejection handled", () =>
    Effect.gen(function*() {
      const asyncHook = (async () => {
        throw new Error("an async observer that fails")
      }) as unknown as Hooks.Hook
      // and a rejected promise of another realm (a `vm` context: not `instanceof Promise` here)
      const otherRealm = (() => runInNewContext("Promise.reject(new Error(\"another realm\"))")) as unknown as Hooks.Hook
      const seen = yield* unhandledDuring(Effect.all([
        Hooks.ignoring(asyncHook)(response),
        Hooks.andThen(asyncHook, asyncHook)!(response),
        Hooks.ignoring(otherRealm)(response)
      ]))
      assert.deepStrictEqual(seen, [])
    }))

  it.live("a hook that throws, fails, dies or returns a value is ignored", () =>
    Effect.gen(function*() {
      const hooks: ReadonlyArray<Hooks.Hook> = [
        () => {
          throw new Error("throws")
        },
        () => Effect.fail("fails") as unknown as Effect.Effect<void>,
        () => Effect.die("dies"),
        () => 42 as unknown as Effect.Effect<void>,
        () => ({ then: () => { throw new Error("a then that throws") } }) as unknown as Effect.Effect<void>,
        () => ({ get then() { throw new Error("a then that cannot be read") } }) as unknown as Effect.Effect<void>
      ]
      for (const hook of hooks) yield* Hooks.ignoring(hook)(response)
    }))

  it.effect("a hook that returns a thenable that is not a Promise (a lazy query builder) is not started by the SDK", () =>
    Effect.gen(function*() {
      let started = 0
      const lazy = { then: () => void started++ }
      yield* Hooks.ignoring((() => lazy) as unknown as Hooks.Hook)(response)
      assert.strictEqual(started, 0)
    }))
})

