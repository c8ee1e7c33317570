/**
 * The cases of the behaviour suite where a request does not complete over
 * loopback: a refused connection, a timeout before the head, a cut or
 * stalled body (alone and among many good requests at once), an interrupt,
 * and the response size limit.
 *
 * @internal
 */
import { assert, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Option, Result } from "effect"
import { HttpClient } from "effect/http"
import type { HttpClientError } from "effect/http"
import type { ServerResponse } from "node:http"
import * as Server from "./server.ts"

/** @internal */
export const withClient = <A, E>(layer: Layer.Layer<HttpClient.HttpClient>, f: (client: HttpClient.HttpClient) => Effect.Effect<A, E>) =>
  Effect.flatMap(Effect.service(HttpClient.HttpClient), f).pipe(Effect.provide(layer))

/**
 * What became of a request within `millis`: its value, the reason of its
 * `HttpClientError`, or `"timeout"`.
 *
 * @internal
 */
export const outcome = <A>(effect: Effect.Effect<A, HttpClientError.HttpClientError>, millis: number) =>
  effect.pipe(
    Effect.result,
    Effect.timeoutOption(millis),
    Effect.map((option): { readonly value: A } | string =>
      Option.isNone(option) ? "timeout" : Result.isSuccess(option.value) ? { value: option.value.success } : option.value.failure.reason._tag)
  )

/** Waits (at most 2 s, then fails the test) until every connection of `received` is closed. */
const closed = (received: ReadonlyArray<Server.Received>, what: string) =>
  Effect.promise(() => Promise.all(received.map((r) => r.closed))).pipe(
    Effect.timeoutOrElse({ duration: "2 seconds", orElse: () => Effect.die(new Error(`${what}: the connection was not released`)) })
  )

/** Polls `condition` every 5 ms, failing the test after 2 s. */
const eventually = (condition: () => boolean, what: string) =>
  Effect.gen(function*() {
    for (let waited = 0; !condition(); waited += 5) {
      if (waited > 2000) return yield* Effect.die(new Error(what))
      yield* Effect.sleep("5 millis")
    }
  })

/** Sends the head and part of a body, then destroys the socket after `millis`. */
const cut = (response: ServerResponse, millis: number) => {
  response.writeHead(200, { "content-type": "application/json", "content-length": "100" })
  response.write("{\"partial\":")
  setTimeout(() => response.socket?.destroy(), millis)
}

/** @internal */
export const failures = (layer: Layer.Layer<HttpClient.HttpClient>): void => {
  it.live("connection refused (nothing listens on the port): a TransportError at once, not a hang", () =>
    Effect.gen(function*() {
      const origin = yield* Server.refusedOrigin
      const result = yield* withClient(layer, (client) => outcome(client.get(`${origin}/refused`), 2000))
      assert.strictEqual(result, "TransportError")
    }))

  it.live("a timeout before the head releases each connection: no socket left open, the next request works", () =>
    Effect.gen(function*() {
      const server = yield* Server.make((request, _, response) => {
        if (request.url === "/ok") response.end("{\"ok\":true}")
      })
      const [timedOut, next] = yield* withClient(layer, (client) =>
        Effect.gen(function*() {
          const timedOut = yield* Effect.all(
            Array.from({ length: 5 }, () => outcome(client.get(`${server.origin}/never`), 150)),
            { concurrency: "unbounded" }
          )
          yield* closed(server.received, "a request timed out before its head")
          yield* eventually(() => server.openSockets() === 0, "a socket is left open after the timeouts")
          return [timedOut, yield* outcome(Effect.flatMap(client.get(`${server.origin}/ok`), (response) => response.json), 2000)] as const
        }))
      assert.deepStrictEqual(timedOut, Array.from({ length: 5 }, () => "timeout"))
      assert.deepStrictEqual(next, { value: { ok: true } })
    }).pipe(Effect.scoped))

  it.live("a body cut after the head: the status is known, reading the body fails", () =>
    Effect.gen(function*() {
      const server = yield* Server.make((_, __, response) => cut(response, 20))
      const [status, body] = yield* withClient(layer, (client) =>
        Effect.flatMap(client.get(`${server.origin}/cut`), (response) => Effect.map(outcome(response.text, 2000), (body) => [response.status, body] as const)))
      assert.strictEqual(status, 200)
      assert.notStrictEqual(body, "timeout")
      assert.isTrue(typeof body === "string", `reading a cut body fails with an HttpClientError, got ${JSON.stringify(body)}`)
    }).pipe(Effect.scoped))

  it.live("a stalled body: a timeout around the read ends it and releases the connection", () =>
    Effect.gen(function*() {
      const server = yield* Server.make((_, __, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.write("{")
      })
      const result = yield* withClient(layer, (client) =>
        Effect.tap(outcome(Effect.flatMap(client.get(`${server.origin}/stall`), (response) => response.text), 200), () =>
          closed(server.received, "a stalled body timed out")))
      assert.strictEqual(result, "timeout")
    }).pipe(Effect.scoped))

  concurrentFailures(layer)

  it.live("interrupting a request before its head releases the connection", () =>
    Effect.gen(function*() {
      const server = yield* Server.make(() => {})
      yield* withClient(layer, (client) =>
        Effect.gen(function*() {
          const fiber = yield* Effect.forkChild(client.get(`${server.origin}/never`))
          while (server.received.length === 0) yield* Effect.sleep("5 millis")
          const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
          assert.isTrue(Exit.hasInterrupts(exit))
          yield* closed(server.received, "an interrupted request")
        }))
    }).pipe(Effect.scoped))
}

const kinds = ["good", "cut", "stalled", "headless"] as const

/**
 * Many requests at once, a quarter of each kind: good ones answer their own
 * id, cut ones lose their connection mid-body, stalled ones never finish
 * their body, headless ones never get a head. Each must get its own outcome.
 */
const concurrentFailures = (layer: Layer.Layer<HttpClient.HttpClient>): void =>
  it.live("many requests at once, some cut mid-body, some stalled, some without a head: each its own outcome, the good ones succeed", () =>
    Effect.gen(function*() {
      const n = 40
      const server = yield* Server.make((request, _, response) => {
        const id = Number(new URL(request.url!, "http://x").searchParams.get("id"))
        const kind = kinds[id % kinds.length]
        if (kind === "good") setTimeout(() => response.end(JSON.stringify({ id })), Math.random() * 20)
        else if (kind === "cut") cut(response, Math.random() * 20)
        else if (kind === "stalled") {
          response.writeHead(200, { "content-type": "application/json" })
          response.write("{\"id\":")
        }
      })
      const unfinished = () =>
        server.received.filter((r) => Number(new URL(r.url, "http://x").searchParams.get("id")) % kinds.length >= 2)
      const outcomes = yield* withClient(layer, (client) =>
        Effect.all(
          Array.from({ length: n }, (_, id) =>
            // the stalled and headless ones are meant to time out; the others get time to finish on a loaded machine
            outcome(Effect.flatMap(client.get(`${server.origin}/mixed`, { urlParams: { id } }), (response) => response.json), id % kinds.length >= 2 ? 300 : 3000)),
          { concurrency: "unbounded" }
        ).pipe(Effect.tap(() => closed(unfinished(), "a stalled or headless request timed out among others"))))
      for (const [id, result] of outcomes.entries()) {
        const kind = kinds[id % kinds.length]
        if (kind === "good") assert.deepStrictEqual(result, { value: { id } }, `request ${id} (${kind})`)
        else if (kind === "cut") assert.isTrue(typeof result === "string" && result !== "timeout", `request ${id} (cut): ${JSON.stringify(result)}`)
        else assert.strictEqual(result, "timeout", `request ${id} (${kind})`)
      }
    }).pipe(Effect.scoped))

/** @internal */
export const responseLimit = (layer: Layer.Layer<HttpClient.HttpClient>, maxResponseBytes: number | undefined): void => {
  // no limit (none given, or `Infinity`): a large body is read whole
  if (maxResponseBytes === undefined || maxResponseBytes === Number.POSITIVE_INFINITY) {
    it.live("no response size limit (the client documents none): a 1 MiB body is read whole", () =>
      Effect.gen(function*() {
        const size = 1024 * 1024
        const server = yield* Server.make((_, __, response) => response.end("x".repeat(size)))
        const text = yield* withClient(layer, (client) => Effect.flatMap(client.get(`${server.origin}/big`), (response) => response.text))
        assert.strictEqual(text.length, size)
      }).pipe(Effect.scoped))
    return
  }
  for (const declared of [false, true]) {
    it.live(`a body over the size limit (${declared ? "declared length" : "chunked"}): the status is known, reading fails with a DecodeError naming the limit, the connection is released`, () =>
      Effect.gen(function*() {
        const server = yield* Server.make((request, _, response) => {
          const size = request.url === "/at" ? maxResponseBytes : maxResponseBytes + 1
          response.writeHead(200, { "content-type": "text/plain", ...(declared ? { "content-length": String(size) } : {}) })
          response.end("x".repeat(size))
        })
        const read = (client: HttpClient.HttpClient, path: string) =>
          Effect.flatMap(client.get(`${server.origin}${path}`), (response) =>
            Effect.map(Effect.result(response.text), (body) => ({ status: response.status, body })))
        const [at, over] = yield* withClient(layer, (client) =>
          Effect.all([read(client, "/at"), read(client, "/over")]).pipe(
            Effect.tap(() => closed(server.received.filter((r) => r.url === "/over"), "a body over the limit"))
          ))
        assert.strictEqual(at.status, 200)
        assert.isTrue(Result.isSuccess(at.body) && at.body.success.length === maxResponseBytes)
        assert.strictEqual(over.status, 200)
        assert.isTrue(Result.isFailure(over.body))
        const reason = Result.getFailure(over.body).pipe(Option.getOrThrow).reason
        assert.strictEqual(reason._tag, "DecodeError")
        assert.include(reason.message, `limit of ${maxResponseBytes} bytes`)
      }).pipe(Effect.scoped))
  }
}
