import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Schema, Stream } from "effect"
import { ConnectionsQuery, SignalsGroup } from "@connected-vehicle/schema/Api"
import type * as Transport from "@connected-vehicle/transport/Transport"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { toQuery } from "../src/internal/args.ts"
import { resource } from "../src/internal/resource.ts"

type SignalsClient = Transport.GroupClient<typeof SignalsGroup, "signals">

/** A fake signals client: records each request, answers a page of `total` items (or a single resource). */
const fake = (total: number) => {
  const requests: Array<unknown> = []
  const answer = <A>(value: A) => Effect.succeed({ value, status: 200, requestId: undefined, headers: {} })
  const client = {
    list: (request: { readonly query?: { readonly page?: number; readonly pageSize?: number } }) => {
      requests.push(request)
      const page = request.query?.page ?? 1
      const size = request.query?.pageSize ?? 10
      const data = Array.from({ length: Math.max(0, Math.min(size, total - (page - 1) * size)) }, (_, i) => ({ id: `s${(page - 1) * size + i}` }))
      const next = page * size < total ? `/signals?page=${page + 1}` : null
      return answer({ data, meta: { pageNumber: page, pageSize: size, totalCount: total }, links: { self: "", prev: null, next } })
    },
    get: (request: unknown) => {
      requests.push(request)
      return answer({ data: "one" })
    }
  }
  return { client: client as unknown as SignalsClient, requests }
}

const PagingQuery = ConnectionsQuery.mapFields(({ page, pageSize }) => ({ page, pageSize }))

describe("resource", () => {
  it.effect("routes each identifying argument to the contract's params and headers; checks every argument before any request", () =>
    Effect.gen(function*() {
      const { client, requests } = fake(5)
      const signals = resource(client, {
        list: { query: PagingQuery, route: { vehicleId: "params.vehicleId", userId: "headers.sc-user-id" } },
        get: { route: { vehicleId: "params.vehicleId", userId: "headers.sc-user-id", code: "params.signalCode" } }
      })
      yield* signals.list({ vehicleId: "veh_1", userId: "usr_1", pageSize: 2 })
      assert.deepStrictEqual(requests[0], { query: { pageSize: 2 }, params: { vehicleId: "veh_1" }, headers: { "sc-user-id": "usr_1" } })
      const items = yield* Stream.runCollect(signals.stream({ vehicleId: "veh_1", userId: "usr_1", pageSize: 2 }))
      assert.deepStrictEqual(items.map((item) => item.id), ["s0", "s1", "s2", "s3", "s4"])
      yield* signals.get({ vehicleId: "veh_1", userId: "usr_1", code: "odometer" })
      assert.deepStrictEqual(requests.at(-1), {
        params: { vehicleId: "veh_1", signalCode: "odometer" },
        headers: { "sc-user-id": "usr_1" }
      })
      const sent = requests.length
      const refused = [
        signals.list({ vehicleId: "..", userId: "usr_1" }),
        signals.list({ vehicleId: "veh_1", userId: "usr_1", pageSize: 0 }),
        signals.list({ vehicleId: "veh_1", userId: "usr_1", mode: "live" } as never),
        signals.get({ vehicleId: "veh_1", userId: "usr_1", code: "a/b" })
      ] as ReadonlyArray<Effect.Effect<unknown, unknown>>
      for (const call of refused) {
        const exit = yield* Effect.exit(call)
        assert.isTrue(Exit.isFailure(exit) && exit.cause.toString().includes("InvalidArgument"))
      }
      assert.strictEqual(requests.length, sent)
    }))

  it.effect("an identifier sent in a header that it would not carry as given is an InvalidArgument naming it, nothing sent; in a path it is sent", () =>
    Effect.gen(function*() {
      const { client, requests } = fake(5)
      const signals = resource(client, {
        list: { query: PagingQuery, route: { vehicleId: "params.vehicleId", userId: "headers.sc-user-id" } },
        get: { route: { vehicleId: "params.vehicleId", userId: "headers.sc-user-id", code: "params.signalCode" } }
      })
      // trimmed by the receiver, blank, a list, Latin-1 bytes, beyond Latin-1
      for (const userId of ["  u1  ", "u1 ", " u1", " ", "u1, u2", ",", "\u00e9", "us\u00e9r", "\ud83d\ude00", "user\u0100"]) {
        const errors = [
          yield* Effect.flip(signals.list({ vehicleId: "veh_1", userId })),
          yield* Effect.flip(signals.get({ vehicleId: "veh_1", userId, code: "odometer" }))
        ]
        for (const error of errors) {
          assert.instanceOf(error, InvalidArgument, JSON.stringify(userId))
          assert.strictEqual((error as InvalidArgument).field, "userId")
          assert.match((error as InvalidArgument).message, /^userId: .*\(it is sent in the sc-user-id header\)$/)
        }
      }
      assert.deepStrictEqual(requests, [])
      // printable ASCII (an inner space too) in a header, anything in a path
      yield* signals.get({ vehicleId: "v\u00e9hicule_\ud83d\ude00", userId: "user 1@x", code: "odometer" })
      assert.deepStrictEqual(requests, [{ params: { vehicleId: "v\u00e9hicule_\ud83d\ude00", signalCode: "odometer" }, headers: { "sc-user-id": "user 1@x" } }])
    }))

  it.effect("one identifier argument fills the path parameter `id` names", () =>
    Effect.gen(function*() {
      const { client, requests } = fake(0)
      const signals = resource(client, { list: { query: PagingQuery }, get: { id: "signalCode" } })
      yield* signals.get("odometer")
      assert.deepStrictEqual(requests, [{ params: { signalCode: "odometer" } }])
    }))

  it("a route to a parameter or header the endpoint does not declare is a type error", () => {
    const { client } = fake(0)
    // @ts-expect-error: the get endpoint has no `code` path parameter (it is `signalCode`)
    resource(client, { list: { query: PagingQuery }, get: { route: { code: "params.code" } } })
    // @ts-expect-error: `id` names a path parameter of the endpoint
    resource(client, { list: { query: PagingQuery }, get: { id: "code" } })
  })

  it.effect("each argument and option is read once: a getter that throws on its second read is never reached again", () =>
    Effect.gen(function*() {
      const { client, requests } = fake(5)
      const signals = resource(client, {
        list: { query: PagingQuery, route: { vehicleId: "params.vehicleId", userId: "headers.sc-user-id" } },
        get: { route: { vehicleId: "params.vehicleId", userId: "headers.sc-user-id", code: "params.signalCode" } }
      })
      // a route argument (read by the route and, before, by the query's own pass)
      yield* signals.list(readOnce({ userId: "usr_1", pageSize: 2 }, "vehicleId", "veh_1"))
      assert.deepStrictEqual(requests.at(-1), { query: { pageSize: 2 }, params: { vehicleId: "veh_1" }, headers: { "sc-user-id": "usr_1" } })
      yield* signals.get(readOnce({ vehicleId: "veh_1", userId: "usr_1" }, "code", "odometer"))
      assert.deepStrictEqual(requests.at(-1), { params: { vehicleId: "veh_1", signalCode: "odometer" }, headers: { "sc-user-id": "usr_1" } })
      // an invalid identifier beside one read once: the error of the invalid one
      const error = yield* Effect.flip(signals.get(readOnce({ vehicleId: "veh_1", userId: "" }, "code", "odometer")))
      assert.instanceOf(error, InvalidArgument)
      assert.strictEqual((error as InvalidArgument).field, "userId")
      // a query argument, and the options of every page of a stream
      const onResponse = () => Effect.void
      for (const readAhead of [0, 1] as const) {
        const items = yield* Stream.runCollect(signals.stream(
          readOnce({ vehicleId: "veh_1", userId: "usr_1" }, "pageSize", 2),
          readOnce({ readAhead }, "onResponse", onResponse)
        ))
        assert.strictEqual(items.length, 5)
        const pages = yield* Stream.runCollect(signals.pages({ vehicleId: "veh_1", userId: "usr_1", pageSize: 2 }, readOnce({}, "onResponse", onResponse)))
        assert.strictEqual(pages.length, 3)
      }
    }))

  it.effect("a revoked Proxy as arguments or options is an InvalidArgument (not a throw or a defect), nothing sent", () =>
    Effect.gen(function*() {
      const { client, requests } = fake(5)
      const signals = resource(client, {
        list: { query: PagingQuery, route: { vehicleId: "params.vehicleId", userId: "headers.sc-user-id" } },
        get: { route: { vehicleId: "params.vehicleId", userId: "headers.sc-user-id", code: "params.signalCode" } }
      })
      const revoked = () => {
        const { proxy, revoke } = Proxy.revocable({}, {})
        revoke()
        return proxy as never
      }
      const valid = { vehicleId: "veh_1", userId: "usr_1" }
      const fields: Array<string> = []
      const calls: ReadonlyArray<() => Effect.Effect<unknown, unknown>> = [
        () => signals.get(revoked()),
        () => signals.list(revoked()),
        () => Stream.runCollect(signals.stream(revoked())),
        () => Stream.runCollect(signals.stream(valid, revoked())),
        () => Stream.runCollect(signals.pages(valid, revoked()))
      ]
      for (const call of calls) {
        const error = yield* Effect.flip(Effect.suspend(call))
        assert.instanceOf(error, InvalidArgument)
        fields.push((error as InvalidArgument).field)
      }
      assert.deepStrictEqual(fields, ["arguments", "arguments", "arguments", "options", "options"])
      assert.strictEqual(requests.length, 0)
    }))

  it.effect("a get's arguments are read when its effect runs: one effect run twice sends what they are each time", () =>
    Effect.gen(function*() {
      const { client, requests } = fake(5)
      const signals = resource(client, {
        list: { query: PagingQuery },
        get: { route: { vehicleId: "params.vehicleId", userId: "headers.sc-user-id", code: "params.signalCode" } }
      })
      const args = { vehicleId: "veh_1", userId: "usr_1", code: "odometer" }
      const get = signals.get(args)
      assert.strictEqual(requests.length, 0)
      args.vehicleId = "veh_2"
      yield* get
      args.vehicleId = "veh_3"
      yield* get
      assert.deepStrictEqual(requests.map((r) => (r as { params: { vehicleId: string } }).params.vehicleId), ["veh_2", "veh_3"])
    }))

  it.effect("only the caller's unreadable arguments are an InvalidArgument naming arguments: a fault of the checks is a defect", () =>
    Effect.gen(function*() {
      const unreadable = yield* Effect.flip(toQuery(PagingQuery)(new Proxy({}, { ownKeys: () => { throw new Error("boom") } })))
      assert.strictEqual(unreadable.field, "arguments")
      // a check that throws (a fault of the SDK's own schema), on arguments that were read
      const Faulty = Schema.Struct({
        page: Schema.optional(Schema.Number.check(Schema.makeFilter(() => { throw new Error("a fault of the check") })))
      })
      const exit = yield* Effect.exit(toQuery(Faulty)({ page: 1 }))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause) && !Cause.hasFails(exit.cause))
    }))
})

/** `target` with an enumerable getter `key` that gives `value` once, then throws. */
const readOnce = <T extends object, K extends string, V>(target: T, key: K, value: V): T & { readonly [P in K]: V } => {
  let reads = 0
  return Object.defineProperty(target, key, {
    enumerable: true,
    get: () => {
      if (reads++ > 0) throw new Error(`${key} read twice`)
      return value
    }
  }) as T & { readonly [P in K]: V }
}
