import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Duration, Effect, Exit, Layer, Option, Redacted } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { makeDataset } from "../src/Data.ts"
import * as Delivery from "../src/Delivery.ts"
import { DEFAULT_HEADERS_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, layer, layerRoots, layerTest, Simulator } from "../src/Simulator.ts"
import { timeoutOptions } from "../src/internal/listen.ts"
import { usageIssue } from "../src/internal/cliInput.ts"
import { durations } from "../src/internal/options.ts"
import { thrown } from "./helpers.ts"
import { openRaw } from "./raw.ts"



/** Each of `cases` (options, the field refused) is an `InvalidArgument` naming that field from every layer constructor. */
const refusedByEveryLayer = (
  cases: ReadonlyArray<readonly [Parameters<typeof layerTest>[0], string]>,
  { messageNamesField = false } = {}
) => {
  for (const [options, field] of cases) {
    for (const make of [layer, layerRoots, layerTest]) {
      const error = thrown(() => make(options as never))
      assert.instanceOf(error, InvalidArgument, JSON.stringify(options))
      assert.strictEqual((error as InvalidArgument).field, field)
      if (messageNamesField) assert.include((error as InvalidArgument).message, field)
    }
  }
}

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
    refusedByEveryLayer(cases, { messageNamesField: true })
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

  it("an unknown or misspelt key (a JavaScript caller's) is an InvalidArgument naming it and the option meant, from every layer; each takes its own keys", () => {
    const cases = [
      [{ headerTimeout: "1 second" }, "headerTimeout", "did you mean headersTimeout?"],
      [{ Seed: 3 }, "Seed", "did you mean seed?"],
      [{ ratelimit: {} }, "ratelimit", "did you mean rateLimit?"],
      [{ verbose: true }, "verbose", undefined],
      [{ verbose: undefined }, "verbose", undefined]
    ] as const
    for (const [options, field, meant] of cases) {
      for (const [make, name] of [[layer, "Simulator.layer"], [layerRoots, "Simulator.layerRoots"], [layerTest, "Simulator.layerTest"]] as const) {
        const error = thrown(() => make(options as never))
        assert.instanceOf(error, InvalidArgument, `${name} ${field}`)
        assert.strictEqual((error as InvalidArgument).field, field)
        assert.include((error as InvalidArgument).message, `${field}: not an option of ${name}`)
        if (meant !== undefined) assert.include((error as InvalidArgument).message, meant)
        else assert.notInclude((error as InvalidArgument).message, "did you mean")
      }
    }
    // port is layer's, ports layerRoots', host both listening layers'; the in-memory layer takes none of them
    assert.strictEqual((thrown(() => layer({ port: 0, headerTimeout: "1 second" } as never)) as InvalidArgument).field, "headerTimeout")
    assert.strictEqual((thrown(() => layerRoots({ port: 0 } as never)) as InvalidArgument).field, "port")
    assert.include((thrown(() => layerRoots({ port: 0 } as never)) as InvalidArgument).message, "did you mean ports?")
    assert.strictEqual((thrown(() => layer({ ports: {} } as never)) as InvalidArgument).field, "ports")
    assert.strictEqual((thrown(() => layerTest({ host: "127.0.0.1" } as never)) as InvalidArgument).field, "host")
    const strange = thrown(() => layer({ ["a\u001b[31m" + "x".repeat(100)]: 1 } as never)) as InvalidArgument
    assert.match(strange.message, /^"a\\u001b\[31mx+": not an option of Simulator\.layer$/)
    assert.isUndefined(thrown(() => layer({ port: 0, host: "127.0.0.1", seed: 1, headersTimeout: "1 second" })))
    assert.isUndefined(thrown(() => layerRoots({ ports: { legacy: 0 }, host: "127.0.0.1", rateLimit: {} })))
  })

  it("a headersTimeout over the requestTimeout is an InvalidArgument naming headersTimeout, from every layer (the CLI's rule); the default is capped", () => {
    for (const options of [{ headersTimeout: "5 seconds", requestTimeout: 100 }, { headersTimeout: "3 millis", requestTimeout: "1500 micros" }] as const) {
      for (const make of [layer, layerRoots, layerTest]) {
        const error = thrown(() => make(options))
        assert.instanceOf(error, InvalidArgument, JSON.stringify(options))
        assert.strictEqual((error as InvalidArgument).field, "headersTimeout")
      }
    }
    assert.strictEqual(
      (thrown(() => layer({ headersTimeout: "5 seconds", requestTimeout: 100 })) as InvalidArgument).message,
      "headersTimeout: Expected at most requestTimeout (100 ms; 0 turns it off), got 5000 ms"
    )
    // equal, off or a request timeout off: taken
    for (const options of [{ headersTimeout: 100, requestTimeout: 100 }, { headersTimeout: 0, requestTimeout: 100 }, { headersTimeout: "1 hour", requestTimeout: 0 }] as const) {
      assert.isUndefined(thrown(() => layer(options)), JSON.stringify(options))
    }
    // the default head timeout (10 s) is at most a shorter request timeout: not an error, not over it
    assert.deepStrictEqual(timeoutOptions(durations({ requestTimeout: "5 seconds" })), { headersTimeout: 5_000, requestTimeout: 5_000, connectionsCheckingInterval: 1_000 })
    assert.deepStrictEqual(timeoutOptions(durations({ requestTimeout: 0 })), { headersTimeout: 10_000, requestTimeout: 0, connectionsCheckingInterval: 1_000 })
    // the CLI applies the same rule to its flags
    const flags = {
      host: "127.0.0.1", clientId: "c", clientSecret: Option.some("s"), clientSecretFile: Option.none(), redirectUris: [], retireV2AfterSunset: false,
      v2Sunset: Option.none(), splitPorts: false, port: Option.none(), rootPorts: {}
    }
    assert.strictEqual(
      usageIssue({ ...flags, headersTimeout: Option.some(5_000), requestTimeout: 100 }),
      "--headers-timeout (5000 ms) must not exceed --request-timeout (100 ms)"
    )
    assert.isUndefined(usageIssue({ ...flags, headersTimeout: Option.none(), requestTimeout: 100 }))
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
    refusedByEveryLayer(cases)
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
