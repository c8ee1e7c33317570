/**
 * A sender that disconnects mid-handler (the service gives up on a delivery
 * after 15 seconds), over real loopback connections to the three receivers:
 * the handler runs to its end and the service's retry is answered
 * `duplicate`; releasing the receiver (its layer, or an adapter's `dispose`)
 * interrupts the handlers still running and releases their marks.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Logger, Scope } from "effect"
import { HttpRouter } from "effect/http"
import { NodeHttpServer } from "@effect/platform-node"
import { createServer, request, type Server } from "node:http"
import * as NodeAdapter from "../src/NodeAdapter.ts"
import * as Receiver from "../src/Receiver.ts"
import * as SeenEvents from "../src/SeenEvents.ts"
import { sign } from "../src/Signature.ts"
import * as WebAdapter from "../src/WebAdapter.ts"
import { secret, vehicleStateEvent } from "./samples.ts"
import { listen } from "./utils.ts"

/** A handler held at a gate: what started, what finished, what was interrupted. */
const gated = () => {
  let open: () => void = () => undefined
  const gate = new Promise<void>((resolve) => open = resolve)
  const started: Array<string> = []
  const finished: Array<string> = []
  const interrupted: Array<string> = []
  const handler = (event: { readonly eventId: string }) =>
    Effect.sync(() => started.push(event.eventId)).pipe(
      Effect.andThen(Effect.promise(() => gate)),
      Effect.andThen(Effect.sync(() => finished.push(event.eventId))),
      Effect.onInterrupt(() => Effect.sync(() => interrupted.push(event.eventId)))
    )
  return { handler, open, started, finished, interrupted }
}

/** A store recording its releases, and whether it was closed when each came. */
const recordingStore = () => {
  const log: Array<string> = []
  const layer = Layer.effect(
    SeenEvents.SeenEvents,
    Effect.gen(function*() {
      const inner = yield* SeenEvents.makeMemory()
      yield* Effect.addFinalizer(() => Effect.sync(() => log.push("store closed")))
      return SeenEvents.SeenEvents.of({
        ...inner,
        release: (eventId, owner) => Effect.tap(inner.release(eventId, owner), () => Effect.sync(() => log.push(`released ${eventId}`)))
      })
    })
  )
  return { log, layer }
}

/** The receivers' warnings (handlers interrupted) and errors (adapters disposed mid-delivery) are expected here. */
const quiet = Logger.layer([])

const until = (check: () => boolean, what: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 500 && !check(); i++) yield* Effect.sleep("10 millis")
    assert.isTrue(check(), what)
  })

const deliveryOf = (eventId: string) => {
  const body = JSON.stringify(vehicleStateEvent(eventId))
  return { body, signature: sign(body, secret) }
}

/** Sends a delivery and destroys the request once `started` holds: the sender gone mid-handler. */
const abandon = (port: number, eventId: string, started: () => boolean) =>
  Effect.gen(function*() {
    const { body, signature } = deliveryOf(eventId)
    const req = request({
      host: "127.0.0.1",
      port,
      path: "/webhooks",
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "sc-signature": signature }
    })
    req.on("error", () => undefined)
    req.end(body)
    yield* until(started, "the handler started")
    req.destroy()
  })

const post = (port: number, eventId: string) =>
  Effect.promise(async () => {
    const { body, signature } = deliveryOf(eventId)
    const response = await fetch(`http://127.0.0.1:${port}/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json", "sc-signature": signature },
      body
    })
    return { status: response.status, text: await response.text() }
  })

/** Counts the connections of `server` that closed (the server saw the sender go). */
const closedConnections = (server: Server) => {
  const closed = { count: 0 }
  server.on("connection", (socket) => socket.once("close", () => closed.count++))
  return closed
}

interface Served {
  readonly server: Server
  readonly port: number
  /** Releases the receiver: its layer, or the adapter's `dispose`. */
  readonly release: Effect.Effect<void>
  /** The handlers' scope, where it can be seen. */
  readonly handlers?: Scope.Scope | undefined
}

type Serve = (
  handler: ReturnType<typeof gated>["handler"],
  store: Layer.Layer<SeenEvents.SeenEvents>
) => Effect.Effect<Served, never, Scope.Scope>

const effectHttp: Serve = (handler, store) =>
  Effect.gen(function*() {
    const server = createServer()
    const scope = yield* Scope.make()
    // as in the README: every method routed to the receiver, the store and the handlers' scope provided to the server
    const context = yield* Layer.buildWithScope(
      HttpRouter.serve(HttpRouter.add("*", "/webhooks", Receiver.toHttpEffect({ secret, handler })), {
        disableLogger: true,
        disableListenLog: true
      }).pipe(
        Layer.provideMerge(Layer.mergeAll(
          quiet,
          store,
          Receiver.layerHandlerScope,
          NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1", gracefulShutdownTimeout: 0 })
        ))
      ),
      scope
    ).pipe(Effect.orDie)
    const address = server.address()
    return {
      server,
      port: typeof address === "object" && address !== null ? address.port : 0,
      release: Scope.close(scope, Exit.void),
      handlers: Context.get(context, Receiver.HandlerScope)
    }
  })

const nodeAdapter: Serve = (handler, store) =>
  Effect.gen(function*() {
    const receiver = NodeAdapter.make({ secret, handler, seenEvents: store, layer: quiet })
    const server = createServer(receiver)
    const port = yield* listen(server)
    return { server, port, release: Effect.promise(() => receiver.dispose()) }
  })

/** The Web adapter behind a Node server that aborts the `Request`'s signal when the sender goes, as Fetch API servers do. */
const webAdapter: Serve = (handler, store) =>
  Effect.gen(function*() {
    const receiver = WebAdapter.make({ secret, handler, seenEvents: store, layer: quiet })
    const server = createServer(async (req, res) => {
      const chunks: Array<Buffer> = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const aborted = new AbortController()
      res.on("close", () => res.writableEnded || aborted.abort())
      const headers = new Headers()
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value)
      const response = await receiver(
        new Request(`http://127.0.0.1${req.url}`, { method: req.method!, headers, body: Buffer.concat(chunks), signal: aborted.signal })
      )
      res.writeHead(response.status, Object.fromEntries(response.headers))
      res.end(await response.text())
    })
    const port = yield* listen(server)
    return { server, port, release: Effect.promise(() => receiver.dispose()) }
  })

const targets: ReadonlyArray<readonly [string, Serve]> = [
  ["effect/http on NodeHttpServer", effectHttp],
  ["Node adapter on http.createServer", nodeAdapter],
  ["Web adapter behind a Node server", webAdapter]
]


describe.each(targets)("%s: the sender disconnects mid-handler", (_name, serve) => {
  it.live("the handler runs to its end, and the service's retry is answered duplicate", () =>
    Effect.gen(function*() {
      const { handler, open, started, finished, interrupted } = gated()
      const store = recordingStore()
      const served = yield* serve(handler, store.layer)
      const closed = closedConnections(served.server)
      yield* abandon(served.port, "evt_abandoned", () => started.length === 1)
      yield* until(() => closed.count === 1, "the server saw the connection close")
      yield* Effect.sleep("50 millis") // the request's own reaction to the close
      open()
      yield* until(() => finished.length === 1 || interrupted.length > 0, "the handler ended")
      assert.deepStrictEqual({ finished, interrupted }, { finished: ["evt_abandoned"], interrupted: [] })
      const retry = yield* post(served.port, "evt_abandoned")
      assert.deepStrictEqual(retry, { status: 200, text: "{\"status\":\"duplicate\"}" })
      assert.deepStrictEqual(started, ["evt_abandoned"])
      assert.deepStrictEqual(store.log, [])
      // the handler's fiber left the handlers' scope as it ended
      if (served.handlers !== undefined) assert.strictEqual(served.handlers.state._tag, "Empty")
      yield* served.release
    }))

  it.live("releasing the receiver interrupts the handlers still running, whether their sender waits or left, and releases their marks", () =>
    Effect.gen(function*() {
      const { handler, started, interrupted } = gated()
      const store = recordingStore()
      const served = yield* serve(handler, store.layer)
      yield* abandon(served.port, "evt_left", () => started.length === 1)
      const waiting = yield* Effect.forkChild(post(served.port, "evt_waiting"))
      yield* until(() => started.length === 2, "the second handler started")
      yield* served.release
      yield* Fiber.interrupt(waiting)
      assert.deepStrictEqual([...interrupted].sort(), ["evt_left", "evt_waiting"])
      assert.deepStrictEqual([...store.log].sort(), ["released evt_left", "released evt_waiting", "store closed"])
      // a delivery's own interruption releases its mark before the store closes
      assert.isBelow(store.log.indexOf("released evt_waiting"), store.log.indexOf("store closed"), store.log.join(", "))
    }))
})
