/**
 * What the receiver tests share: the HTTP targets a delivery is sent to (the
 * `effect/http` application on NodeHttpServer, the Node adapter on a plain
 * `http.createServer`, the Web adapter called directly), a recording handler
 * and a capturing logger.
 */
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Logger, References } from "effect"
import { createHmac } from "node:crypto"
import { createServer, type Server } from "node:http"
import * as NodeAdapter from "../src/NodeAdapter.ts"
import * as Receiver from "../src/Receiver.ts"
import * as SeenEvents from "../src/SeenEvents.ts"
import * as WebAdapter from "../src/WebAdapter.ts"
import { secretText } from "./samples.ts"

export interface Answer {
  readonly status: number
  readonly contentType: string | null
  readonly text: string
  readonly json: any
}

export interface Send {
  readonly body: string | Uint8Array
  readonly signature?: string | undefined
  readonly method?: string | undefined
  /** send the body as a stream (chunked, no content-length) */
  readonly streamed?: boolean | undefined
}

export type Target = (send: Send) => Promise<Answer>

/** What the handler saw, and a switch to make it fail or wait. */
export const recorder = () => {
  const calls: Array<DeliveredEvent> = []
  const state = { failures: 0, die: false, interrupt: false, gate: undefined as Promise<void> | undefined }
  const handler = (event: DeliveredEvent) =>
    Effect.gen(function*() {
      calls.push(event)
      if (state.gate !== undefined) yield* Effect.promise(() => state.gate!)
      if (state.die) {
        state.die = false
        return yield* Effect.die(new Error("handler defect"))
      }
      if (state.interrupt) {
        state.interrupt = false
        return yield* Effect.interrupt
      }
      if (state.failures > 0) {
        state.failures--
        return yield* Effect.fail(new Error("database unavailable"))
      }
    })
  return { calls, state, handler }
}

/** A logger keeping every line, at every level. */
export const capture = () => {
  const lines: Array<string> = []
  const logger = Logger.make((options) => {
    lines.push(Logger.formatJson.log(options))
    lines.push(Logger.formatLogFmt.log(options))
  })
  const layer = Layer.merge(Logger.layer([logger]), Layer.succeed(References.MinimumLogLevel, "All"))
  return { lines, layer }
}

export const toStream = (body: string | Uint8Array) => {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 4096) controller.enqueue(bytes.slice(i, i + 4096))
      controller.close()
    }
  })
}

export const requestInit = (send: Send): RequestInit & { duplex?: "half" } => {
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "ConnectedVehicle/4.0" }
  if (send.signature !== undefined) headers["sc-signature"] = send.signature
  const method = send.method ?? "POST"
  if (method === "GET" || method === "HEAD") return { method, headers }
  return send.streamed === true
    ? { method, headers, body: toStream(send.body), duplex: "half" }
    : { method, headers, body: send.body as string }
}

export const answerOf = async (response: Response): Promise<Answer> => {
  const text = await response.text()
  let json: unknown = undefined
  try {
    json = JSON.parse(text)
  } catch {
    // not JSON: the assertions on `json` fail
  }
  return { status: response.status, contentType: response.headers.get("content-type"), text, json }
}

export const fetchTarget = (url: string): Target => (send) => fetch(url, requestInit(send)).then(answerOf)

export type Options = Receiver.Options<Error, never>

export const listen = (server: Server) =>
  Effect.acquireRelease(
    Effect.callback<number>((resume) => {
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
      })
    }),
    () =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

export const targets: ReadonlyArray<readonly [string, (options: Options, logs: Layer.Layer<never>) => Effect.Effect<Target, never, any>]> =
  [
    ["effect/http on NodeHttpServer", (options, logs) =>
      Effect.gen(function*() {
        const store = yield* SeenEvents.makeMemory()
        const server = yield* NodeHttpServer.make(() => createServer(), { port: 0, host: "127.0.0.1", gracefulShutdownTimeout: 0 })
        const handlers = yield* Effect.scope
        yield* server.serve(Receiver.toHttpEffect(options)).pipe(
          Effect.provideService(SeenEvents.SeenEvents, store),
          Effect.provideService(Receiver.HandlerScope, handlers),
          Effect.provide(logs)
        )
        const port = server.address._tag === "UnixPathAddress" ? 0 : server.address.port
        return fetchTarget(`http://127.0.0.1:${port}/webhooks`)
      }).pipe(Effect.orDie)],
    ["Node adapter on http.createServer", (options, logs) =>
      Effect.gen(function*() {
        const handler = NodeAdapter.make({ ...options, layer: logs })
        yield* Effect.addFinalizer(() => Effect.promise(() => handler.dispose()))
        const port = yield* listen(createServer(handler))
        return fetchTarget(`http://127.0.0.1:${port}/webhooks`)
      })],
    ["Web adapter called directly", (options, logs) =>
      Effect.gen(function*() {
        const handler = WebAdapter.make({ ...options, layer: logs })
        yield* Effect.addFinalizer(() => Effect.promise(() => handler.dispose()))
        return (send: Send) => handler(new Request("http://receiver.test/webhooks", requestInit(send))).then(answerOf)
      })]
  ]

export const expectedChallenge = (challenge: string) => createHmac("sha256", secretText).update(challenge).digest("hex")

/** Waits `ms` of real time (whatever the test's clock). */
export const pause = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** Waits (real time) until `check` holds, for at most 5 seconds: for the work a store does in the background. */
export const eventually = (what: string, check: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500 && !check(); i++) yield* pause(10)
    if (!check()) return yield* Effect.die(new Error(`not within 5 seconds: ${what}`))
  })
