import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream } from "effect"
import * as Pagination from "@connected-vehicle/transport/Pagination"
import type { Result } from "@connected-vehicle/transport/Transport"

type Page = Pagination.NumberedPage<number>

/** A list of `total` items, `size` a page; the requested page numbers, in order. */
const list = (total: number, size: number, slow?: Deferred.Deferred<void>) => {
  const requested: Array<number> = []
  const interrupted: Array<number> = []
  const fetch = (page: number): Effect.Effect<Result<Page>> =>
    Effect.suspend(() => {
      requested.push(page)
      const data = Array.from({ length: Math.max(0, Math.min(size, total - (page - 1) * size)) }, (_, i) => (page - 1) * size + i)
      const value: Page = {
        data,
        meta: { pageNumber: page, pageSize: size, totalCount: total },
        links: { next: page * size < total ? `?page=${page + 1}` : null }
      }
      const result = { value, status: 200, headers: {} } as unknown as Result<Page>
      return page > 1 && slow !== undefined
        ? Deferred.await(slow).pipe(Effect.as(result), Effect.onInterrupt(() => Effect.sync(() => interrupted.push(page))))
        : Effect.succeed(result)
    })
  return { fetch, requested, interrupted }
}

describe("Pagination.items", () => {
  it.effect("emits every item, one chunk per page, with and without read-ahead", () =>
    Effect.gen(function*() {
      for (const readAhead of [0, 1] as const) {
        const { fetch, requested } = list(7, 3)
        const chunks = yield* Stream.runCollect(Stream.chunks(Pagination.items(fetch, { readAhead })))
        assert.deepStrictEqual(chunks.map((c) => [...c]), [[0, 1, 2], [3, 4, 5], [6]])
        assert.deepStrictEqual(requested, [1, 2, 3])
      }
    }))

  it.effect("reads one page ahead by default: the next request starts before the consumer asks", () =>
    Effect.gen(function*() {
      const slow = yield* Deferred.make<void>()
      const { fetch, requested } = list(9, 3, slow)
      yield* Effect.scoped(Effect.gen(function*() {
        const pull = yield* Stream.toPull(Pagination.items(fetch))
        assert.deepStrictEqual([...(yield* pull)], [0, 1, 2])
        // page 2 is requested although nothing pulled it; page 3 only once page 2 is handed on
        while (requested.length < 2) yield* Effect.yieldNow
        assert.deepStrictEqual(requested, [1, 2])
        yield* Deferred.succeed(slow, undefined)
        assert.deepStrictEqual([...(yield* pull)], [3, 4, 5])
        while (requested.length < 3) yield* Effect.yieldNow
        assert.deepStrictEqual(requested, [1, 2, 3])
      }))
    }))

  it.effect("readAhead 0 requests a page only when the consumer pulls", () =>
    Effect.gen(function*() {
      const { fetch, requested } = list(9, 3)
      yield* Effect.scoped(Effect.gen(function*() {
        const pull = yield* Stream.toPull(Pagination.items(fetch, { readAhead: 0 }))
        assert.deepStrictEqual([...(yield* pull)], [0, 1, 2])
        for (let i = 0; i < 20; i++) yield* Effect.yieldNow
        assert.deepStrictEqual(requested, [1])
      }))
    }))

  it.effect("a read-ahead request still running when the stream ends early is interrupted", () =>
    Effect.gen(function*() {
      const slow = yield* Deferred.make<void>()
      const { fetch, interrupted, requested } = list(9, 3, slow)
      const first = yield* Stream.runCollect(Stream.take(Pagination.items(fetch), 2))
      assert.deepStrictEqual(first, [0, 1])
      assert.deepStrictEqual(requested, [1, 2])
      assert.deepStrictEqual(interrupted, [2])
    }))

  it.effect("a failed read-ahead request fails the stream after the current page's items", () =>
    Effect.gen(function*() {
      const { fetch } = list(9, 3)
      const failing = (page: number) => page === 2 ? Effect.fail("page 2 failed" as const) : fetch(page)
      const seen: Array<number> = []
      const fiber = yield* Effect.forkChild(Stream.runForEach(Pagination.items(failing), (n) => Effect.sync(() => seen.push(n))))
      const exit = yield* Fiber.await(fiber)
      assert.deepStrictEqual(seen, [0, 1, 2])
      assert.strictEqual(exit._tag, "Failure")
      assert.include(String(exit), "page 2 failed")
    }))

  it.effect("skips empty pages and starts at startPage", () =>
    Effect.gen(function*() {
      const { fetch, requested } = list(6, 3)
      assert.deepStrictEqual(yield* Stream.runCollect(Pagination.items(fetch, { startPage: 2 })), [3, 4, 5])
      assert.deepStrictEqual(requested, [2])
      const empty = list(0, 3)
      assert.deepStrictEqual(yield* Stream.runCollect(Pagination.items(empty.fetch)), [])
      assert.deepStrictEqual(empty.requested, [1])
    }))
})
