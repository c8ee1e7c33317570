import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Duration, Effect, Exit, Layer, Redacted } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { makeDataset } from "../src/Data.ts"
import * as Delivery from "../src/Delivery.ts"
import { DEFAULT_HEADERS_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, layer, layerRoots, layerTest, Simulator } from "../src/Simulator.ts"
import { timeoutOptions } from "../src/internal/listen.ts"
import { durations } from "../src/internal/options.ts"
import { thrown } from "./helpers.ts"
import { openRaw } from "./raw.ts"


describe("options checked by the layer constructors", () => {
  it("a duration that is negative, not finite or not a duration is an InvalidArgument naming it, from every layer", () => {
    const cases = [
      [{ latency: -1 }, "latency"],
      [{ latency: Number.NaN }, "latency"],
      [{ headersTimeout: "Infinity" }, "headersTimeout"],
      [{ requestTimeout: "soon" as Duration.Input }, "requestTimeout"]
    ] as const
    for (const [options, field] of cases) {
      for (const make of [layer, layerRoots, layerTest]) {
        const error = thrown(() => make(options))
        assert.instanceOf(error, InvalidArgument)
        assert.strictEqual((error as InvalidArgument).field, field)
      }
    }
  })

  it("the numbers have the CLI's bounds: an InvalidArgument naming the option, from every layer (no RangeError, clamp or minutes-long build)", () => {
    const cases = [
      [{ seed: Number.NaN }, "seed"],
      [{ seed: 1.5 }, "seed"],
      [{ vehicles: -1 }, "vehicles"],
      [{ users: 2.5 }, "users"],
      [{ webhooks: Number.POSITIVE_INFINITY }, "webhooks"],
      [{ connections: 1e9 }, "connections"],
      [{ failureRate: 2 }, "failureRate"],
      [{ failureRate: -0.1 }, "failureRate"],
      [{ failureRate: Number.NaN }, "failureRate"],
      [{ accessTokenLifetime: "500 millis" }, "accessTokenLifetime"],
      [{ accessTokenLifetime: -5 }, "accessTokenLifetime"],
      [{ accessTokenLifetime: "soon" as Duration.Input }, "accessTokenLifetime"]
    ] as const
    for (const [options, field] of cases) {
      for (const make of [layer, layerRoots, layerTest]) {
        const error = thrown(() => make(options))
        assert.instanceOf(error, InvalidArgument, JSON.stringify(options))
        assert.strictEqual((error as InvalidArgument).field, field)
        assert.include((error as InvalidArgument).message, field)
      }
    }
    for (const port of [70_000, -1, 1.5]) {
      const error = thrown(() => layer({ port }))
      assert.instanceOf(error, InvalidArgument, String(port))
      assert.strictEqual((error as InvalidArgument).field, "port")
    }
    const rootPort = thrown(() => layerRoots({ ports: { legacy: 65_536 } }))
    assert.instanceOf(rootPort, InvalidArgument)
    assert.strictEqual((rootPort as InvalidArgument).field, "ports.legacy")
    assert.isUndefined(thrown(() => layer({ seed: -3, vehicles: 0, connections: 10_000_000, failureRate: 1, port: 65_535, accessTokenLifetime: "2 minutes" })))
  })

  it("a renamed *Millis option given from JavaScript is an InvalidArgument naming its new name, from every layer", () => {
    for (const [old, renamed] of [["latencyMillis", "latency"], ["headersTimeoutMillis", "headersTimeout"], ["requestTimeoutMillis", "requestTimeout"]]) {
      for (const make of [layer, layerRoots, layerTest]) {
        const error = thrown(() => make({ [old!]: 20 } as never))
        assert.instanceOf(error, InvalidArgument, old)
        assert.strictEqual((error as InvalidArgument).field, old)
        assert.include((error as InvalidArgument).message, `${old} was renamed ${renamed}`)
      }
    }
  })

  it("a webhookSecret that is empty or over 1,024 characters is an InvalidArgument naming it, from every layer", () => {
    for (const webhookSecret of ["", Redacted.make(""), "k".repeat(1025)]) {
      for (const make of [layer, layerRoots, layerTest]) {
        const error = thrown(() => make({ webhookSecret }))
        assert.instanceOf(error, InvalidArgument)
        assert.strictEqual((error as InvalidArgument).field, "webhookSecret")
      }
    }
    assert.isUndefined(thrown(() => layer({ webhookSecret: "k".repeat(1024) })))
  })

  it("an empty client id or secret, a redirect URI the server could never match: an InvalidArgument naming it, from every layer (as the CLI refuses them)", () => {
    const cases = [
      [{ clientId: "" }, "clientId"],
      [{ clientSecret: "" }, "clientSecret"],
      [{ redirectUris: ["../callback"] }, "redirectUris"],
      [{ redirectUris: ["myapp://call back"] }, "redirectUris"],
      [{ redirectUris: ["https://app.example/cb", ""] }, "redirectUris"],
      [{ redirectUris: ["http://user@127.0.0.1:*"] }, "redirectUris"],
      [{ redirectUris: ["https://app.example/cb#top"] }, "redirectUris"]
    ] as const
    for (const [options, field] of cases) {
      for (const make of [layer, layerRoots, layerTest]) {
        const error = thrown(() => make(options))
        assert.instanceOf(error, InvalidArgument, JSON.stringify(options))
        assert.strictEqual((error as InvalidArgument).field, field)
      }
    }
    assert.notInclude(String((thrown(() => layer({ clientSecret: "" })) as InvalidArgument).message), "demo")
    assert.isUndefined(thrown(() => layer({ clientId: "app", clientSecret: "s", redirectUris: ["http://[::1]:*/cb", "https://partner.example", "myapp://callback"] })))
  })

  it.live("a host with an IPv6 zone id (no URL can carry it) is an InvalidArgument naming host, from layer and layerRoots; ::1 serves at http://[::1]:port", () =>
    Effect.gen(function*() {
      for (const make of [layer, layerRoots]) {
        const error = thrown(() => make({ host: "::1%lo" }))
        assert.instanceOf(error, InvalidArgument)
        assert.strictEqual((error as InvalidArgument).field, "host")
        assert.include((error as InvalidArgument).message, "%lo")
      }
      const url = yield* Effect.scoped(Layer.build(layer({ host: "::1" })).pipe(Effect.map((context) => Context.get(context, Simulator).url)))
      assert.match(url, /^http:\/\/\[::1\]:\d+$/)
      assert.strictEqual(new URL(url).hostname, "[::1]")
    }))

  it.effect("Delivery.make with an empty secret is a defect naming it", () =>
    Effect.gen(function*() {
      const data = makeDataset({ seed: 1, vehicles: 1, users: 1, webhooks: 0, connections: 1 })
      const exit = yield* Effect.exit(Effect.scoped(Delivery.make({ data, secret: "" })))
      assert.isTrue(Exit.isFailure(exit))
      const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      assert.instanceOf(defect, InvalidArgument)
      assert.strictEqual((defect as InvalidArgument).field, "secret")
    }))

  it("defaults are 10 s and 30 s; any Duration input is read, a number as milliseconds", () => {
    assert.deepStrictEqual(timeoutOptions(durations(undefined)), { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1_000 })
    assert.strictEqual(Duration.toMillis(DEFAULT_HEADERS_TIMEOUT), 10_000)
    assert.strictEqual(Duration.toMillis(DEFAULT_REQUEST_TIMEOUT), 30_000)
    const read = timeoutOptions(durations({ headersTimeout: 300, requestTimeout: "1 second" }))
    assert.deepStrictEqual(read, { headersTimeout: 300, requestTimeout: 1_000, connectionsCheckingInterval: 75 })
    assert.strictEqual(Duration.toMillis(durations({ latency: Duration.millis(20) }).latency), 20)
    // Node counts whole milliseconds: a part of one rounds up, never down to 0 (no limit)
    const tiny = timeoutOptions(durations({ headersTimeout: "500 micros", requestTimeout: "1500 micros" }))
    assert.deepStrictEqual([tiny.headersTimeout, tiny.requestTimeout], [1, 2])
  })

  it.live("over loopback, a sub-millisecond timeout is a limit, not none: \"500 micros\" rounds up to 1 ms and a head that never ends gets 408", () =>
    Effect.gen(function*() {
      const sim = Context.get(yield* Layer.build(layer({ headersTimeout: "500 micros", requestTimeout: "500 micros" })), Simulator)
      const connection = yield* Effect.promise(() => openRaw(sim.url))
      connection.send("GET /v3/connections HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
      const response = yield* Effect.promise(() => connection.next(5_000))
      assert.strictEqual(response.status, 408, response.body)
      assert.strictEqual(JSON.parse(response.body).errors[0].code, "REQUEST_TIMEOUT")
      yield* Effect.promise(() => connection.closed)
    }).pipe(Effect.scoped))
})
