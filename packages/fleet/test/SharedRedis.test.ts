/**
 * SharedRedis.layer against servers that misbehave: one that answers the
 * layer's first PING and then stalls the client's handshake fails the build
 * within `connectTimeout`; a connection lost later, whose reconnections
 * stall, comes back, many times over, with no socket kept (no leak); an idle
 * connection is kept (its PINGs keep it busy).
 */
import { assert, describe, it } from "@effect/vitest"
import { subscribe, unsubscribe } from "node:diagnostics_channel"
import { type AddressInfo, createServer, type Server, type Socket } from "node:net"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { Clock, Context, Effect, Layer, Redacted, Schedule } from "effect"
import { Redis } from "effect/persistence"
import { inject } from "vitest"
import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"
import { freezableProxy } from "./proxy.ts"

/** A server on 127.0.0.1 that answers `+PONG` to anything on its first connection, and nothing on the others. */
const answersFirstOnly = Effect.acquireRelease(
  Effect.callback<{ readonly port: number; readonly server: Server; readonly sockets: Array<Socket> }>((resume) => {
    const sockets: Array<Socket> = []
    const server = createServer((socket) => {
      sockets.push(socket)
      socket.on("error", () => {})
      if (sockets.length === 1) socket.on("data", () => socket.write("+PONG\r\n"))
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ port: (server.address() as AddressInfo).port, server, sockets })))
  }),
  ({ server, sockets }) =>
    Effect.sync(() => {
      sockets.forEach((socket) => socket.destroy())
      server.close()
    })
)

/** Every client socket this process makes from now on (weakly held), until the scope closes. */
const clientSockets = Effect.acquireRelease(
  Effect.sync(() => {
    const made: Array<WeakRef<object>> = []
    const onSocket = (message: unknown) => {
      made.push(new WeakRef((message as { readonly socket: object }).socket))
    }
    subscribe("net.client.socket", onSocket)
    return { made, onSocket }
  }),
  ({ onSocket }) => Effect.sync(() => unsubscribe("net.client.socket", onSocket))
)

const collectGarbage = Effect.promise(async () => {
  setFlagsFromString("--expose-gc")
  const gc = runInNewContext("gc") as () => void
  for (let i = 0; i < 3; i++) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
})

const redisPort = () => Number(new URL(inject("redisUrl")).port)

describe("SharedRedis", () => {
  it.live("a server that answers the first PING and stalls the client's handshake: RedisUnavailable within connectTimeout", () =>
    Effect.gen(function*() {
      const { port, sockets } = yield* answersFirstOnly
      const started = yield* Clock.currentTimeMillis
      const error = yield* Layer.build(SharedRedis.layer({ url: Redacted.make(`redis://127.0.0.1:${port}`), connectTimeout: "1 second" })).pipe(
        Effect.scoped,
        Effect.flip
      )
      assert.strictEqual(error.reason._tag, "RedisUnavailable")
      assert.include(error.message, "no answer within 1000 ms")
      assert.strictEqual(sockets.length, 2) // the PING answered, the client's connection stalled
      assert.isBelow((yield* Clock.currentTimeMillis) - started, 3_000)
    }).pipe(Effect.scoped, Effect.timeout("15 seconds")), 20_000)

  it.live("a lost connection whose reconnections stall comes back, 20 times over: no socket kept, the heap flat", () =>
    Effect.gen(function*() {
      const { made } = yield* clientSockets
      const proxy = yield* freezableProxy(redisPort())
      const context = yield* Layer.build(SharedRedis.layer({ url: Redacted.make(`redis://127.0.0.1:${proxy.port}`), connectTimeout: "250 millis" }))
      const redis = Context.get(context, Redis.Redis)
      const ping = redis.send<string>("PING").pipe(Effect.timeout("200 millis"))
      const cycle = Effect.gen(function*() {
        proxy.freeze()
        const before = proxy.accepted()
        proxy.drop() // the client reconnects at once, to a proxy that accepts and never answers
        yield* Effect.sleep("10 millis").pipe(Effect.repeat({ until: () => proxy.accepted() > before + 1 }), Effect.timeout("5 seconds"))
        proxy.thaw()
        yield* ping.pipe(Effect.retry(Schedule.spaced("50 millis")), Effect.timeout("5 seconds"))
      })
      yield* Effect.repeat(cycle, { times: 2 })
      yield* collectGarbage
      const heapBefore = process.memoryUsage().heapUsed
      const accepted = proxy.accepted()
      yield* Effect.repeat(cycle, { times: 16 })
      const reconnections = proxy.accepted() - accepted
      yield* collectGarbage
      const alive = made.filter((ref) => ref.deref() !== undefined).length
      const grown = process.memoryUsage().heapUsed - heapBefore
      console.log(`${reconnections} reconnections (two stalled a cycle), ${made.length} client sockets made, ${alive} alive; heap grew ${grown} bytes`)
      assert.isAtLeast(reconnections, 32)
      // the client's current connection and the proxy's upstream for it, and a few more on a loaded machine;
      // a listener on one AbortSignal for all the client's sockets kept every one (62 here)
      assert.isAtMost(alive, 6)
      assert.isBelow(grown, 2_000_000)
      assert.strictEqual(yield* ping, "PONG")
    }).pipe(Effect.scoped, Effect.timeout("60 seconds")), 70_000)

  it.live("an idle connection is kept: no reconnection over several connectTimeouts", () =>
    Effect.gen(function*() {
      const proxy = yield* freezableProxy(redisPort())
      const context = yield* Layer.build(SharedRedis.layer({ url: Redacted.make(`redis://127.0.0.1:${proxy.port}`), connectTimeout: "1 second" }))
      const accepted = proxy.accepted() // the layer's PING, the client's connection
      yield* Effect.sleep("3500 millis")
      assert.strictEqual(proxy.accepted(), accepted)
      assert.strictEqual(yield* Context.get(context, Redis.Redis).send<string>("PING"), "PONG")
    }).pipe(Effect.scoped, Effect.timeout("10 seconds")), 15_000)
})
