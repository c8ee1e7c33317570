/**
 * Options given from JavaScript: a key that is not an option (a misspelling,
 * which would keep the default), a dispatcher that is not one and request-id
 * header names that are not header names are refused at construction with an
 * `InvalidArgument` naming them, not accepted and ignored (or failing every
 * request after).
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit } from "effect"
import { Agent } from "undici"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { unknownOption } from "@connected-vehicle/transport/Setting"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "../src/UndiciHttpClient.ts"

const roots = TransportConfig.rootsFromOrigin("http://127.0.0.1:8080")

/** The `InvalidArgument` `f` throws: its field and message. */
const refused = (f: () => unknown): InvalidArgument => {
  try {
    f()
  } catch (error) {
    assert.instanceOf(error, InvalidArgument)
    return error as InvalidArgument
  }
  assert.fail("accepted")
}

const make = (options: object) => TransportConfig.make({ roots, ...options } as TransportConfig.Options)

describe("TransportConfig.make: keys that are not options", () => {
  it("a misspelt key at the top, in retry and in rateLimit is an InvalidArgument naming its path", () => {
    for (
      const [options, field] of [
        [{ timout: "1 second" }, "timout"],
        [{ userAgnet: "app/1" }, "userAgnet"],
        [{ retri: { maxAttempts: 1 } }, "retri"],
        [{ retry: { maxRetriez: 1 } }, "retry.maxRetriez"],
        [{ retry: { maxAttempts: 2, maxAttemps: 1 } }, "retry.maxAttemps"],
        [{ rateLimit: { wiat: true } }, "rateLimit.wiat"],
        [{ "x\u001b[31m": 1 }, "\"x\\u001b[31m\""]
      ] as const
    ) {
      const error = refused(() => make(options))
      assert.strictEqual(error.field, field)
      assert.include(error.message, `${field}: unknown option (expected one of `)
    }
    assert.include(refused(() => make({ retry: { maxRetriez: 1 } })).message, "maxAttempts, initialDelay, factor, maxDelay, maxElapsed, retryNonIdempotent")
  })

  it("the same through retryPolicy, rateLimitPolicy and layerOrigin; every documented key is accepted", () => {
    assert.strictEqual(refused(() => TransportConfig.retryPolicy(TransportConfig.defaults.retry, { maxRetriez: 1 } as never)).field, "retry.maxRetriez")
    assert.strictEqual(refused(() => TransportConfig.rateLimitPolicy(TransportConfig.defaults.rateLimit, { wiat: true } as never)).field, "rateLimit.wiat")
    assert.strictEqual(refused(() => TransportConfig.layerOrigin("http://127.0.0.1:8080", { timout: 5 } as never)).field, "timout")
    const config = make({
      userAgent: "app/1",
      timeout: "2 seconds",
      retry: { maxAttempts: 2, initialDelay: 1, factor: 1, maxDelay: 1, maxElapsed: 10, retryNonIdempotent: true },
      rateLimit: { wait: true, maxWait: 5 },
      requestIdHeader: "x-trace",
      httpSpans: true,
      logLevel: "Warn"
    })
    assert.strictEqual(config.retry.maxAttempts, 2)
    assert.isTrue(config.rateLimit.wait)
    assert.strictEqual(refused(() => TransportConfig.make(undefined as never)).field, "options")
  })

  it("unknownOption: undefined when every key is known; a key that is not plain is shown as JSON, cut", () => {
    assert.isUndefined(unknownOption({ wait: true }, ["wait", "maxWait"]))
    assert.isUndefined(unknownOption({}, ["wait"]))
    assert.strictEqual(unknownOption({ wiat: true }, ["wait", "maxWait"], "rateLimit")?.field, "rateLimit.wiat")
    assert.strictEqual(unknownOption({ ["a".repeat(50)]: 1 }, ["wait"])?.field, JSON.stringify("a".repeat(40)))
  })
})

describe("TransportConfig.make: requestIdHeader", () => {
  it("a name that is not an RFC 9110 token, an empty name or an empty list is refused naming requestIdHeader", () => {
    for (const requestIdHeader of ["bad header", "x(y)", "x:y", "", " ", "caf\u00e9", ["x-request-id", "a,b"], [], ["x-request-id", ""]]) {
      const error = refused(() => make({ requestIdHeader }))
      assert.strictEqual(error.field, "requestIdHeader", JSON.stringify(requestIdHeader))
    }
    assert.include(refused(() => make({ requestIdHeader: [] })).message, "at least one header name")
    assert.include(refused(() => make({ requestIdHeader: "x(y)" })).message, "\"x(y)\"")
  })

  it("CONNECTED_VEHICLE_REQUEST_ID_HEADER: a name that is not a token is a ConfigError, not a throw of make", () => {
    const read = (names: string) =>
      Effect.runSyncExit(TransportConfig.config.parse(ConfigProvider.fromUnknown({
        CONNECTED_VEHICLE: { ORIGIN: "http://127.0.0.1:8080", REQUEST_ID_HEADER: names }
      })))
    for (const names of ["x(y)", "x-request-id, bad header", ","]) assert.isTrue(Exit.isFailure(read(names)), names)
    const good = read(" X-Trace , sc-request-id")
    assert.isTrue(Exit.isSuccess(good))
    if (Exit.isSuccess(good)) assert.deepStrictEqual(TransportConfig.make(good.value).requestIdHeaders, ["x-trace", "sc-request-id"])
  })

  it("header names are trimmed, lower-cased and kept once; every token character is accepted", () => {
    assert.deepStrictEqual(make({ requestIdHeader: [" X-Trace ", "x-trace", "SC-Request-Id"] }).requestIdHeaders, ["x-trace", "sc-request-id"])
    assert.deepStrictEqual(make({ requestIdHeader: "a!#$%&'*+-.^_`|~9" }).requestIdHeaders, ["a!#$%&'*+-.^_`|~9"])
    assert.deepStrictEqual(make({}).requestIdHeaders, TransportConfig.defaults.requestIdHeaders)
  })
})

describe("UndiciHttpClient: options and dispatcher", () => {
  it("a key that is not an option of layer or make is an InvalidArgument naming it", () => {
    for (const key of ["maxResponseByte", "maxResponseSize", "headersTimeout", "bodyTimeout", "timeout"]) {
      const error = refused(() => UndiciHttpClient.layer({ [key]: 1 } as never))
      assert.strictEqual(error.field, key)
      assert.include(error.message, "expected one of maxResponseBytes, connections")
      const agent = new Agent()
      assert.strictEqual(refused(() => UndiciHttpClient.make(agent, { [key]: 1 } as never)).field, key)
      void agent.close()
    }
    UndiciHttpClient.layer({ maxResponseBytes: 1024, connections: 2 })
  })

  it("make with no dispatcher, a string or an object without dispatch: refused naming dispatcher", () => {
    for (const dispatcher of [undefined, null, "x", 1, {}, { dispatch: "no" }]) {
      const error = refused(() => UndiciHttpClient.make(dispatcher as never))
      assert.strictEqual(error.field, "dispatcher")
      assert.include(error.message, "an object with a dispatch function")
    }
    const agent = new Agent()
    UndiciHttpClient.make(agent)
    void agent.close()
  })
})
