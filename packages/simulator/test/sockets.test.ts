/**
 * Raw-socket tests (node:net): requests no HTTP client would send as written.
 * Every answer is a section 7 envelope with an `x-request-id`, or a clean
 * close; sockets are released; unread bodies up to 1 MiB leave the
 * keep-alive connection usable.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readdirSync } from "node:fs"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import type { SimulatorOptions } from "../src/Simulator.ts"
import { MIGRATION_GUIDE_PATH } from "../src/Sunset.ts"
import { isEnvelope } from "./helpers.ts"
import type { RawConnection, RawResponse } from "./raw.ts"
import { chunked, openRaw, rawRequest } from "./raw.ts"

/** A section 7 envelope with the status, and the response's request id in `meta.debug.requestId`. */
const assertEnvelope = (response: RawResponse, status: number) => {
  assert.strictEqual(response.status, status, response.body)
  assert.match(response.headers["content-type"] ?? "", /^application\/json/)
  const requestId = response.headers["x-request-id"]
  assert.isString(requestId)
  const body = JSON.parse(response.body)
  assert.isTrue(isEnvelope(body), response.body)
  assert.strictEqual(body.errors[0].status, String(status))
  assert.strictEqual(body.errors[0].meta.debug.requestId, requestId)
}

/** The connection is still usable: one more request on it gets its answer. */
const stillUsable = async (connection: RawConnection) => {
  connection.send(rawRequest("GET", "/nothing-here"))
  assertEnvelope(await connection.next(), 404)
}

const keepsAlive = (response: RawResponse) => assert.notMatch(response.headers["connection"] ?? "keep-alive", /close/i)

/** Runs `f` against a fresh simulator on a loopback port. */
const using = <A>(f: (origin: string) => Promise<A>, options: SimulatorOptions = {}) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    return yield* Effect.promise(() => f(sim.url))
  }).pipe(Effect.provide(simulatorLayer({ seed: 12, ...options })))

/** The deprecated v2.0 endpoints' `Deprecation` / `Link` headers (no `Sunset`: no removal date is configured), or none of them. */
const assertDeprecation = (response: RawResponse, origin: string, expected: boolean) => {
  if (!expected) {
    assert.isUndefined(response.headers["deprecation"])
    assert.isUndefined(response.headers["sunset"])
    assert.isUndefined(response.headers["link"])
    return
  }
  assert.strictEqual(response.headers["deprecation"], "@1796083200")
  assert.isUndefined(response.headers["sunset"])
  assert.strictEqual(response.headers["link"], `<${origin}${MIGRATION_GUIDE_PATH}>; rel="deprecation"; type="text/markdown"`)
}

const websocketHeaders = { connection: "Upgrade", upgrade: "websocket", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" }
const h2cHeaders = { connection: "Upgrade, HTTP2-Settings", upgrade: "h2c", "http2-settings": "AAMAAABkAAQAAP__" }

/** An Upgrade request (websocket or h2c; without a body, with a Content-Length body, or chunked), as bytes. */
const upgradeRequest = (kind: "websocket" | "h2c", body: "none" | "length" | "chunked", target = "/nope0") => {
  const upgrade = kind === "websocket" ? websocketHeaders : h2cHeaders
  if (body === "none") return rawRequest("GET", target, upgrade)
  const json = "{\"a\":1}"
  return body === "length"
    ? rawRequest("POST", target, { ...upgrade, "content-type": "application/json", "content-length": String(json.length) }, json)
    : rawRequest("POST", target, { ...upgrade, "content-type": "application/json", "transfer-encoding": "chunked" }, `7\r\n${json}\r\n0\r\n\r\n`)
}

const upgradeVariants = (["websocket", "h2c"] as const).flatMap((kind) => (["none", "length", "chunked"] as const).map((body) => ({ kind, body })))

/** Polls (bounded) until the server's connection count is back to `start`. */
const settled = (start: number) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    let open = yield* sim.connections
    for (let i = 0; i < 600 && open > start; i++) {
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
      open = yield* sim.connections
    }
    return open
  })

/**
 * 500 connections in batches of 50, each exchanging two requests as `exchange`
 * does it (both answers must be 401 envelopes). Even-numbered clients keep
 * their side open after the server's FIN (as a client waiting for an answer
 * would: the server must still let go, on its idle keep-alive timeout),
 * odd-numbered ones close it.
 */
const fiveHundred = (
  origin: string,
  exchange: (connection: RawConnection, i: number) => Promise<readonly [RawResponse, RawResponse]>
) =>
  Effect.gen(function*() {
    const statuses: Array<number> = []
    const one = async (i: number) => {
      const connection = await openRaw(origin, { allowHalfOpen: i % 2 === 0 })
      const [first, second] = await exchange(connection, i)
      statuses.push(first.status, second.status)
      assertEnvelope(first, 401)
      assertEnvelope(second, 401)
      if (i % 2 === 0) connection.socket.once("end", () => connection.socket.destroy())
      else connection.socket.end()
    }
    for (let batch = 0; batch < 500; batch += 50) {
      yield* Effect.promise(() => Promise.all(Array.from({ length: 50 }, (_, k) => one(batch + k))))
    }
    assert.strictEqual(statuses.length, 1000)
    assert.isTrue(statuses.every((status) => status === 401))
  })

describe("upgrade requests release their sockets", () => {
  it.live("500 connections, each an Upgrade (h2c or websocket) then a second request: the server's connection count returns to its start", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const start = yield* sim.connections
      yield* fiveHundred(sim.url, async (connection, i) => {
        const upgrade = i % 4 < 2
          ? { connection: "Upgrade, HTTP2-Settings", upgrade: "h2c", "http2-settings": "AAMAAABkAAQAAP__" }
          : { connection: "Upgrade", upgrade: "websocket", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" }
        connection.send(rawRequest("GET", "/v3/connections", upgrade))
        const first = await connection.next()
        connection.send(rawRequest("GET", "/v3/connections"))
        return [first, await connection.next()] as const
      })
      // Bounded wait (polling) until the server has released every socket.
      assert.strictEqual(yield* settled(start), start)
    }).pipe(Effect.provide(simulatorLayer({ seed: 11 }))), 120_000)

  it.live("a request pipelined in the same write after an Upgrade (websocket, h2c; no body, Content-Length, chunked) is answered", () =>
    using(async (origin) => {
      for (const { body, kind } of upgradeVariants) {
        const what = `${kind}, body ${body}`
        const connection = await openRaw(origin)
        connection.send(Buffer.concat([upgradeRequest(kind, body), rawRequest("GET", "/nope")]))
        const first = await connection.next()
        assertEnvelope(first, 404)
        assert.match(JSON.parse(first.body).errors[0].detail, /nope0/, what)
        keepsAlive(first)
        const second = await connection.next()
        assertEnvelope(second, 404)
        assert.notMatch(JSON.parse(second.body).errors[0].detail, /nope0/, what)
        keepsAlive(second)
        await stillUsable(connection)
        connection.socket.destroy()
      }
    }))

  it.live("a request before and two after an Upgrade, all in one write: four answers in order; the upgrade request reaches the log", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      yield* sim.resetLog
      const answers = yield* Effect.promise(async () => {
        const connection = await openRaw(sim.url)
        connection.send(Buffer.concat([
          rawRequest("GET", "/nope-before", { "x-request-id": "before" }),
          upgradeRequest("h2c", "chunked", "/v3/connections"),
          rawRequest("GET", "/nope-after", { "x-request-id": "after" }),
          upgradeRequest("websocket", "none", "/nope-last")
        ]))
        const out = [await connection.next(), await connection.next(), await connection.next(), await connection.next()]
        connection.socket.destroy()
        return out
      })
      assert.deepStrictEqual(answers.map((a) => a.status), [404, 401, 404, 404])
      assert.strictEqual(answers[0]!.headers["x-request-id"], "before")
      assert.strictEqual(answers[2]!.headers["x-request-id"], "after")
      assert.match(JSON.parse(answers[3]!.body).errors[0].detail, /nope-last/)
      const log = yield* sim.requests
      assert.deepStrictEqual(log.map((entry) => entry.path), ["/nope-before", "/v3/connections", "/nope-after", "/nope-last"])
      assert.strictEqual(log[1]!.headers["upgrade"], "h2c")
    }).pipe(Effect.provide(simulatorLayer({ seed: 13 }))))

  it.live("a dozen Upgrade requests in one write, then a plain one: thirteen answers in order, no listener leak warning", () =>
    Effect.gen(function*() {
      const warnings: Array<string> = []
      const onWarning = (warning: Error) => warnings.push(warning.name)
      process.on("warning", onWarning)
      const answers = yield* using(async (origin) => {
        const connection = await openRaw(origin)
        const requests = Array.from({ length: 12 }, (_, i) => upgradeRequest(i % 2 === 0 ? "websocket" : "h2c", (["none", "length", "chunked"] as const)[i % 3]!, `/nope-${i}`))
        connection.send(Buffer.concat([...requests, rawRequest("GET", "/nope-last")]))
        const out: Array<RawResponse> = []
        for (let i = 0; i < 13; i++) out.push(await connection.next())
        connection.socket.destroy()
        return out
      }).pipe(Effect.ensuring(Effect.sync(() => process.off("warning", onWarning))))
      answers.forEach((answer, i) => {
        assertEnvelope(answer, 404)
        assert.include(JSON.parse(answer.body).errors[0].detail, i < 12 ? `/nope-${i}` : "/nope-last")
      })
      assert.notInclude(warnings, "MaxListenersExceededWarning")
    }))

  it.live("500 connections, each an Upgrade and a second request in one write: both answered, connections and descriptors return to their start", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const start = yield* sim.connections
      // This process's open descriptors (Linux): the client and the server sockets are both here.
      const descriptors = () => existsSync("/proc/self/fd") ? readdirSync("/proc/self/fd").length : 0
      const startDescriptors = descriptors()
      yield* fiveHundred(sim.url, async (connection, i) => {
        const { body, kind } = upgradeVariants[i % upgradeVariants.length]!
        connection.send(Buffer.concat([upgradeRequest(kind, body, "/v3/connections"), rawRequest("GET", "/v3/connections")]))
        return [await connection.next(), await connection.next()] as const
      })
      assert.strictEqual(yield* settled(start), start)
      let open = descriptors()
      for (let i = 0; i < 300 && open > startDescriptors; i++) {
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
        open = descriptors()
      }
      assert.isAtMost(open, startDescriptors)
    }).pipe(Effect.provide(simulatorLayer({ seed: 14 }))), 120_000)
})

describe("answers outside the routes are envelopes with a request id", () => {
  it.live("HTTP/1.1 without Host: 400, and the connection stays usable", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send(rawRequest("GET", "/v3/compatible-vehicles", { host: null }))
      const response = await connection.next()
      assertEnvelope(response, 400)
      assert.match(JSON.parse(response.body).errors[0].detail, /Host/)
      await stillUsable(connection)
      connection.socket.destroy()
    }))

  it.live("an Expect other than 100-continue: 417", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send(rawRequest("GET", "/v3/compatible-vehicles", { expect: "something-else" }))
      assertEnvelope(await connection.next(), 417)
      await stillUsable(connection)
      connection.socket.destroy()
    }))

  it.live("CONNECT: 405, then the connection closes", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send(rawRequest("CONNECT", "example.com:443", { host: "example.com:443", "x-request-id": "connect-1" }))
      const response = await connection.next()
      assertEnvelope(response, 405)
      assert.strictEqual(response.headers["x-request-id"], "connect-1")
      assert.strictEqual(response.headers["connection"], "close")
      await connection.closed
    }))

  it.live("Upgrade: h2c with a chunked body is answered as an ordinary request (no bare 411)", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send(rawRequest("POST", "/v3/connections", {
        connection: "Upgrade, HTTP2-Settings",
        upgrade: "h2c",
        "http2-settings": "AAMAAABkAAQAAP__",
        "content-type": "application/json",
        "transfer-encoding": "chunked"
      }, "7\r\n{\"a\":1}\r\n0\r\n\r\n"))
      const response = await connection.next()
      assertEnvelope(response, 401)
      keepsAlive(response)
      await stillUsable(connection)
      connection.socket.destroy()
    }))

  it.live("a request Node cannot parse: 400, then the connection closes", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send("GET /v3 HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
      const response = await connection.next()
      assertEnvelope(response, 400)
      await connection.closed
    }))
})

describe("answers of the parser's rejections to HEAD and under /oauth", () => {
  it.live("a HEAD the parser rejects: the head of the 400, no body", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      const received: Array<Buffer> = []
      connection.socket.on("data", (chunk: Buffer) => received.push(chunk))
      connection.send("HEAD /v3/connections HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
      await connection.closed
      const text = Buffer.concat(received).toString("latin1")
      assert.match(text, /^HTTP\/1\.1 400 /)
      assert.match(text, /content-length: [1-9]\d*\r\n/)
      assert.isTrue(text.endsWith("\r\n\r\n"), text)
    }))

  it.live("a bad request after another in the same packet (its method cannot be told for sure): a whole answer, its body included", () =>
    using(async (origin) => {
      for (
        const [bytes, body] of [
          ["HEAD /v3/connections HTTP/1.1\r\nHost: x\r\n\r\nGET /v3/connections HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", true],
          ["GET /nothing-here HTTP/1.1\r\nHost: x\r\n\r\nHEAD /v3/connections HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", true]
        ] as const
      ) {
        const connection = await openRaw(origin)
        const received: Array<Buffer> = []
        connection.socket.on("data", (chunk: Buffer) => received.push(chunk))
        connection.send(bytes)
        await connection.closed
        const text = Buffer.concat(received).toString("latin1")
        const last = text.slice(text.lastIndexOf("HTTP/1.1 "))
        assert.match(last, /^HTTP\/1\.1 400 /, text)
        const length = Number(/content-length: (\d+)\r\n/.exec(last)?.[1])
        assert.strictEqual(body ? last.length - last.indexOf("\r\n\r\n") - 4 : 0, body ? length : 0, text)
      }
    }))

  it.live("under /oauth: the OAuth body with the envelope's errors", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send("POST /oauth/token HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
      const response = await connection.next()
      assertEnvelope(response, 400)
      assert.strictEqual(JSON.parse(response.body).error, "invalid_request")
      await connection.closed
    }))
})

describe("answers of the parser's rejections under a deprecated /v2.0 path carry the deprecation headers", () => {
  it.live("431 for a 20 KB header: with Deprecation and Link under a deprecated /v2.0 path, without for the vehicle list and /v3", () =>
    using(async (origin) => {
      const id = "00000000-0000-0000-0000-000000000000"
      const paths = [[`/v2.0/vehicles/${id}/odometer`, true], [`/V2.0//vehicles/${id}/ODOMETER/?x=1`, true], ["/v2.0/vehicles", false]] as const
      for (const [path, legacy] of [...paths, ["/V2.0//vehicles/?x=1", false], ["/v3/connections", false]] as const) {
        const connection = await openRaw(origin)
        connection.send(rawRequest("GET", path, { "x-big": "a".repeat(20 * 1024) }))
        const response = await connection.next()
        assertEnvelope(response, 431)
        assertDeprecation(response, origin, legacy)
        await connection.closed
      }
    }))

  it.live("400 for a header Node cannot parse: with the headers under a deprecated /v2.0 path", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send("GET /v2.0/vehicles/00000000-0000-0000-0000-000000000000/vin HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
      const response = await connection.next()
      assertEnvelope(response, 400)
      assertDeprecation(response, origin, true)
      await connection.closed
    }))

  it.live("400 for a bad chunk in a /v2.0 body (the head was parsed): with the headers", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send(rawRequest("POST", "/v2.0/vehicles/00000000-0000-0000-0000-000000000000/batch", {
        "content-type": "application/json",
        "transfer-encoding": "chunked"
      }, "zz\r\n{}\r\n0\r\n\r\n"))
      const response = await connection.next()
      assertEnvelope(response, 400)
      assertDeprecation(response, origin, true)
      await connection.closed
    }))

  it.live("a rejected request after another in the same write: no headers claimed for a path that cannot be told", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send(Buffer.concat([rawRequest("GET", "/nothing-here"), Buffer.from("GET /v2.0/vehicles HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")]))
      assertEnvelope(await connection.next(), 404)
      const response = await connection.next()
      assertEnvelope(response, 400)
      assertDeprecation(response, origin, false)
      await connection.closed
    }))
})

describe("slow requests (headersTimeout, requestTimeout)", () => {
  const slow = { headersTimeout: "300 millis", requestTimeout: "600 millis" } as const

  it.live("a head that never ends (slowloris): 408 with the envelope and a request id, then the connection closes", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send("GET /v3/connections HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
      const response = await connection.next(20_000)
      assertEnvelope(response, 408)
      assert.strictEqual(JSON.parse(response.body).errors[0].code, "REQUEST_TIMEOUT")
      assert.strictEqual(response.headers["connection"], "close")
      assertDeprecation(response, origin, false)
      await connection.closed
    }, slow))

  it.live("a /v2.0 body that never ends: 408 with the deprecation headers", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send(rawRequest("POST", "/v2.0/vehicles/00000000-0000-0000-0000-000000000000/batch", {
        "content-type": "application/json",
        "content-length": "100"
      }, "{\"requests\""))
      const response = await connection.next(20_000)
      assertEnvelope(response, 408)
      assertDeprecation(response, origin, true)
      await connection.closed
    }, slow))

  it.live("a slow answer is not a slow request: a 1 s delay fault with 300 ms / 600 ms timeouts answers 200", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send(rawRequest("GET", "/v3/compatible-vehicles", { "x-simulator-fault": "delay=1000" }))
      const response = await connection.next(20_000)
      assert.strictEqual(response.status, 200, response.body)
      keepsAlive(response)
      connection.socket.destroy()
    }, slow))

  it.live("an idle keep-alive connection is not a slow request: no 408 between requests", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send(rawRequest("GET", "/nothing-here"))
      assertEnvelope(await connection.next(), 404)
      // longer than both timeouts, shorter than the 5 s keep-alive timeout
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      await stillUsable(connection)
      connection.socket.destroy()
    }, slow))
})

describe("unread request bodies", () => {
  it.live("an early 401 to an unread 900 KiB chunked body keeps the connection alive, truthfully", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send(rawRequest("POST", "/v3/connections", { "content-type": "application/json", "transfer-encoding": "chunked" }, chunked(900 * 1024)))
      const response = await connection.next()
      assertEnvelope(response, 401)
      keepsAlive(response)
      await stillUsable(connection)
      assert.isFalse(connection.isClosed())
      connection.socket.destroy()
    }))

  it.live("an early 401 to an unread 300 KiB Content-Length body keeps the connection alive", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      const body = Buffer.alloc(300 * 1024, 97)
      connection.send(rawRequest("POST", "/v3/connections", { "content-type": "application/json", "content-length": String(body.length) }, body))
      const response = await connection.next()
      assertEnvelope(response, 401)
      keepsAlive(response)
      await stillUsable(connection)
      connection.socket.destroy()
    }))

  it.live("a chunked body over 1 MiB: 413 with connection: close, then the connection closes", () =>
    using(async (origin) => {
      for (const path of ["/v3/connections", "/v2.0/vehicles/00000000-0000-0000-0000-000000000000/batch"]) {
        const connection = await openRaw(origin)
        connection.send(rawRequest("POST", path, { "content-type": "application/json", "transfer-encoding": "chunked" }, chunked(1536 * 1024)))
        const response = await connection.next()
        assertEnvelope(response, 413)
        assert.strictEqual(response.headers["connection"], "close")
        await connection.closed
      }
    }))

  it.live("Expect: 100-continue: a body the handler reads gets 100 Continue and keep-alive; an early answer says connection: close", () =>
    using(async (origin) => {
      const form = "grant_type=client_credentials"
      const read = await openRaw(origin)
      read.send(rawRequest("POST", "/oauth/token", {
        authorization: "Basic " + Buffer.from("demo-client-id:demo-client-secret").toString("base64"),
        "content-type": "application/x-www-form-urlencoded",
        "content-length": String(form.length),
        "user-agent": "raw-test/1.0",
        expect: "100-continue"
      }))
      assert.strictEqual((await read.next()).status, 100)
      read.send(form)
      const token = await read.next()
      assert.strictEqual(token.status, 200, token.body)
      assert.isString(token.headers["x-request-id"])
      keepsAlive(token)
      await stillUsable(read)
      read.socket.destroy()

      const early = await openRaw(origin)
      early.send(rawRequest("POST", "/v3/connections", { "content-type": "application/json", "content-length": "10", expect: "100-continue" }))
      const response = await early.next()
      assertEnvelope(response, 401)
      assert.strictEqual(response.headers["connection"], "close")
      await early.closed
    }))

  it.live("a Content-Length over 1 MiB: 413 with connection: close, before the body is sent", () =>
    using(async (origin) => {
      const connection = await openRaw(origin)
      connection.send(rawRequest("POST", "/v3/connections", { "content-type": "application/json", "content-length": String(2 * 1024 * 1024) }))
      const response = await connection.next()
      assertEnvelope(response, 413)
      assert.strictEqual(response.headers["connection"], "close")
      await connection.closed
    }))
})
