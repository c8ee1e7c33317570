import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream } from "effect"
import { Headers, HttpClientRequest } from "effect/http"
import type { HttpClientResponse } from "effect/http"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
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
      const result: Result<Page> = { value, request: HttpClientRequest.get(`http://127.0.0.1/list?page=${page}`), status: 200, requestId: undefined, headers: Headers.empty }
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

  it.effect("readAhead 1 reads one page ahead: the next request starts before the consumer asks", () =>
    Effect.gen(function*() {
      const slow = yield* Deferred.make<void>()
      const { fetch, requested } = list(9, 3, slow)
      yield* Effect.scoped(Effect.gen(function*() {
        const pull = yield* Stream.toPull(Pagination.items(fetch, { readAhead: 1 }))
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

  it.effect("requests a page only when the consumer pulls, by default and with readAhead 0", () =>
    Effect.gen(function*() {
      for (const options of [undefined, { readAhead: 0 } as const]) {
        const { fetch, requested } = list(9, 3)
        yield* Effect.scoped(Effect.gen(function*() {
          const pull = yield* Stream.toPull(Pagination.items(fetch, options))
          assert.deepStrictEqual([...(yield* pull)], [0, 1, 2])
          for (let i = 0; i < 20; i++) yield* Effect.yieldNow
          assert.deepStrictEqual(requested, [1])
        }))
      }
    }))

  it.effect("by default, 5 items of pages of 2 take 3 requests", () =>
    Effect.gen(function*() {
      const { fetch, requested } = list(10, 2)
      assert.deepStrictEqual(yield* Stream.runCollect(Stream.take(Pagination.items(fetch), 5)), [0, 1, 2, 3, 4])
      assert.deepStrictEqual(requested, [1, 2, 3])
    }))

  it.effect("a read-ahead request still running when the stream ends early is interrupted", () =>
    Effect.gen(function*() {
      const slow = yield* Deferred.make<void>()
      const { fetch, interrupted, requested } = list(9, 3, slow)
      const first = yield* Stream.runCollect(Stream.take(Pagination.items(fetch, { readAhead: 1 }), 2))
      assert.deepStrictEqual(first, [0, 1])
      assert.deepStrictEqual(requested, [1, 2])
      assert.deepStrictEqual(interrupted, [2])
    }))

  it.effect("a failed read-ahead request fails the stream after the current page's items", () =>
    Effect.gen(function*() {
      const { fetch } = list(9, 3)
      const failing = (page: number) => page === 2 ? Effect.fail("page 2 failed" as const) : fetch(page)
      const seen: Array<number> = []
      const fiber = yield* Effect.forkChild(Stream.runForEach(Pagination.items(failing, { readAhead: 1 }), (n) => Effect.sync(() => seen.push(n))))
      const exit = yield* Fiber.await(fiber)
      assert.deepStrictEqual(seen, [0, 1, 2])
      assert.strictEqual(exit._tag, "Failure")
      assert.include(String(exit), "page 2 failed")
    }))

  it.effect("readAhead 1, a consumer already waiting: the page after the next is requested at the next page's head, before that page is read", () =>
    Effect.gen(function*() {
      const head = yield* Deferred.make<void>()
      const body = yield* Deferred.make<void>()
      const { fetch: plain } = list(12, 3)
      const requested: Array<number> = []
      const head200 = { status: 200 } as HttpClientResponse.HttpClientResponse
      // page 2: its head when `head` is done, its body (the decode) when `body` is
      const fetch = (page: number, options?: Pagination.PageCallOptions) =>
        Effect.gen(function*() {
          requested.push(page)
          if (page === 2) yield* Deferred.await(head)
          yield* options?.onResponse?.(head200) ?? Effect.void
          if (page === 2) yield* Deferred.await(body)
          return yield* plain(page)
        })
      yield* Effect.scoped(Effect.gen(function*() {
        const pull = yield* Stream.toPull(Pagination.items(fetch, { readAhead: 1 }))
        assert.deepStrictEqual([...(yield* pull)], [0, 1, 2])
        // nobody waits for page 2 yet: its head alone starts nothing
        while (requested.length < 2) yield* Effect.yieldNow
        assert.deepStrictEqual(requested, [1, 2])
        const second = yield* Effect.forkChild(pull, { startImmediately: true })
        yield* Deferred.succeed(head, undefined)
        while (requested.length < 3) yield* Effect.yieldNow
        // page 3 is on its way while page 2's body is still unread
        assert.deepStrictEqual(requested, [1, 2, 3])
        assert.isUndefined(second.pollUnsafe())
        yield* Deferred.succeed(body, undefined)
        assert.deepStrictEqual([...(yield* Fiber.join(second))], [3, 4, 5])
        assert.deepStrictEqual([...(yield* pull)], [6, 7, 8])
        assert.deepStrictEqual([...(yield* pull)], [9, 10, 11])
        // each page requested once
        assert.deepStrictEqual(requested, [1, 2, 3, 4])
      }))
    }))

  it.effect("readAhead 1: a page requested early that is not there after all (the list shrank) is dropped unread", () =>
    Effect.gen(function*() {
      const requested: Array<number> = []
      const interrupted: Array<number> = []
      const never = yield* Deferred.make<void>()
      const head200 = { status: 200 } as HttpClientResponse.HttpClientResponse
      // page 1 announces 9 items; page 2 says 6 in all, and no next page
      const pageOf = (page: number, total: number): Result<Page> =>
        ({
          value: {
            data: [page * 10, page * 10 + 1, page * 10 + 2],
            meta: { pageNumber: page, pageSize: 3, totalCount: total },
            links: { next: page * 3 < total ? `?page=${page + 1}` : null }
          },
          status: 200,
          headers: {}
        }) as unknown as Result<Page>
      const fetch = (page: number, options?: Pagination.PageCallOptions): Effect.Effect<Result<Page>> =>
        Effect.suspend(() => {
          requested.push(page)
          const head = options?.onResponse?.(head200) ?? Effect.void
          if (page === 1) return Effect.andThen(head, Effect.succeed(pageOf(1, 9)))
          if (page === 2) return Effect.andThen(Effect.andThen(Effect.yieldNow, head), Effect.succeed(pageOf(2, 6)))
          return Deferred.await(never).pipe(Effect.as(pageOf(page, 6)), Effect.onInterrupt(() => Effect.sync(() => interrupted.push(page))))
        })
      const items = yield* Stream.runCollect(Pagination.items(fetch, { readAhead: 1 }))
      assert.deepStrictEqual(items, [10, 11, 12, 20, 21, 22])
      assert.deepStrictEqual(requested, [1, 2, 3])
      assert.deepStrictEqual(interrupted, [3])
    }))

  it.effect("skips empty pages and starts at startPage", () =>
    Effect.gen(function*() {
      for (const readAhead of [0, 1] as const) {
        const { fetch, requested } = list(6, 3)
        assert.deepStrictEqual(yield* Stream.runCollect(Pagination.items(fetch, { startPage: 2, readAhead })), [3, 4, 5])
        assert.deepStrictEqual(requested, [2])
        const empty = list(0, 3)
        assert.deepStrictEqual(yield* Stream.runCollect(Pagination.items(empty.fetch, { readAhead })), [])
        assert.deepStrictEqual(empty.requested, [1])
      }
    }))

  it.effect("a page that is not the one asked for (a proxy that drops the query) fails the stream with an InvalidResponse, no item emitted twice", () =>
    Effect.gen(function*() {
      for (const readAhead of [0, 1] as const) {
        const { fetch } = list(50, 5)
        const requested: Array<number> = []
        // every request answered with page 1, whatever was asked
        const ignoring = (page: number) => Effect.sync(() => requested.push(page)).pipe(Effect.andThen(fetch(1)))
        const items: Array<number> = []
        const reason = reasonOf(yield* Effect.flip(Stream.runForEach(Pagination.items(ignoring, { readAhead }), (n) => Effect.sync(() => items.push(n)))))
        assert.strictEqual(reason._tag, "InvalidResponse")
        assert.match(reason.message, /page 2 was asked for and page 1 came/)
        assert.deepStrictEqual(items, [0, 1, 2, 3, 4])
        assert.isAtMost(requested.length, 3)
        const pagesExit = yield* Stream.runCollect(Pagination.pages(ignoring)).pipe(Effect.exit)
        assert.strictEqual(pagesExit._tag, "Failure")
      }
    }))

  it.effect("an empty page that says more items follow fails the list with an InvalidResponse (no silent end, no loop)", () =>
    Effect.gen(function*() {
      for (const readAhead of [0, 1] as const) {
        for (const [next, total, fails] of [["?page=3", 1_000_000_000, true], [null, 1_000_000_000, false], ["?page=3", 2, false]] as const) {
          const requested: Array<number> = []
          const lying = (page: number): Effect.Effect<Result<Page>> =>
            Effect.sync(() => {
              requested.push(page)
              const value: Page = {
                data: page === 1 ? [1, 2] : [],
                meta: { pageNumber: page, pageSize: 2, totalCount: page === 1 ? 1_000_000_000 : total },
                links: { next: page === 1 ? "?page=2" : next }
              }
              return { value, request: HttpClientRequest.get(`http://127.0.0.1/list?page=${page}`), status: 200, requestId: undefined, headers: Headers.empty }
            })
          const items: Array<number> = []
          const run = Stream.runForEach(Pagination.items(lying, { readAhead }), (n) => Effect.sync(() => items.push(n)))
          if (!fails) {
            yield* run
            assert.deepStrictEqual(items, [1, 2])
            assert.deepStrictEqual(requested, [1, 2])
            continue
          }
          const reason = reasonOf(yield* Effect.flip(run))
          assert.deepStrictEqual(items, [1, 2])
          assert.deepStrictEqual(requested, [1, 2])
          assert.strictEqual(reason._tag, "InvalidResponse")
          assert.match(reason.message, /page 2 is empty, yet its totalCount \(1000000000\) and links.next say more items follow/)
        }
      }
    }))
})

describe("Pagination.offsetItems", () => {
  const vehicles = (total: number, echo?: number) => {
    const requested: Array<number> = []
    const fetch = (offset: number, limit: number): Effect.Effect<Result<Pagination.OffsetPage>> =>
      Effect.sync(() => {
        requested.push(offset)
        const ids = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => `v${offset + i}`)
        const value: Pagination.OffsetPage = { paging: { count: total, offset: echo ?? offset }, vehicles: echo === undefined ? ids : ids.slice(0, 0).concat(["v0", "v1"]) }
        return { value, request: HttpClientRequest.get(`http://127.0.0.1/v2.0/vehicles?offset=${offset}`), status: 200, requestId: "r-1", headers: Headers.empty }
      })
    return { fetch, requested }
  }

  it.effect("reads every vehicle id, limit per request", () =>
    Effect.gen(function*() {
      const { fetch, requested } = vehicles(5)
      assert.deepStrictEqual(yield* Stream.runCollect(Pagination.offsetItems(fetch, { limit: 2 })), ["v0", "v1", "v2", "v3", "v4"])
      assert.deepStrictEqual(requested, [0, 2, 4])
    }))

  it.effect("an empty page below paging.count fails with an InvalidResponse; an empty last page ends", () =>
    Effect.gen(function*() {
      const answer = (count: number) => (offset: number): Effect.Effect<Result<Pagination.OffsetPage>> =>
        Effect.succeed({
          value: { paging: { count, offset }, vehicles: offset === 0 ? ["v0", "v1"] : [] },
          request: HttpClientRequest.get(`http://127.0.0.1/v2.0/vehicles?offset=${offset}`),
          status: 200,
          requestId: "r-1",
          headers: Headers.empty
        })
      const reason = reasonOf(yield* Effect.flip(Stream.runCollect(Pagination.offsetItems(answer(10), { limit: 2 }))))
      assert.strictEqual(reason._tag, "InvalidResponse")
      assert.match(reason.message, /offset 2 came empty, yet its paging.count \(10\) says more vehicles follow/)
      assert.deepStrictEqual(yield* Stream.runCollect(Pagination.offsetItems(answer(2), { limit: 2 })), ["v0", "v1"])
    }))

  it.effect("a page at another offset than asked (a proxy that drops the query) fails with an InvalidResponse", () =>
    Effect.gen(function*() {
      const { fetch, requested } = vehicles(100, 0)
      const reason = reasonOf(yield* Effect.flip(Stream.runCollect(Pagination.offsetItems(fetch, { limit: 2 }))))
      assert.strictEqual(reason._tag, "InvalidResponse")
      assert.match(reason.message, /offset 2 was asked for and offset 0 came/)
      assert.match(reason.message, /GET http:\/\/127\.0\.0\.1\/v2\.0\/vehicles\?offset=2/)
      assert.deepStrictEqual(requested, [0, 2])
    }))
})
