/**
 * SharedRedis.layer against servers that misbehave at connection: the build
 * fails with `RedisUnavailable` within `connectTimeout`, and a timeout around
 * it interrupts it.
 */
import { assert, describe, it } from "@effect/vitest"
import { type AddressInfo, createServer, type Server, type Socket } from "node:net"
import { Clock, type Duration, Effect, Layer, Option, Redacted } from "effect"
import * as SharedRedis from "@connected-vehicle/fleet/SharedRedis"

/** A server on 127.0.0.1 that answers `+PONG` to anything on its first `answered` connections, then nothing. */
const stallingServer = (answered: number) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly port: number; readonly server: Server; readonly sockets: Array<Socket> }>((resume) => {
      const sockets: Array<Socket> = []
      const server = createServer((socket) => {
        sockets.push(socket)
        socket.on("error", () => {})
        if (sockets.length <= answered) socket.on("data", () => socket.write("+PONG\r\n"))
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ port: (server.address() as AddressInfo).port, server, sockets })))
    }),
    ({ server, sockets }) =>
      Effect.sync(() => {
        sockets.forEach((socket) => socket.destroy())
        server.close()
      })
  )

const build = (port: number, connectTimeout: Duration.Input) =>
  Layer.build(SharedRedis.layer({ url: Redacted.make(`redis://127.0.0.1:${port}`), connectTimeout })).pipe(Effect.scoped)

describe("SharedRedis", () => {
  for (const answered of [0, 1]) {
    it.live(`a server that stalls after ${answered} answered connection(s): RedisUnavailable within connectTimeout; a timeout interrupts the build`, () =>
      Effect.gen(function*() {
        const { port } = yield* stallingServer(answered)
        const started = yield* Clock.currentTimeMillis
        const error = yield* Effect.flip(build(port, "1 second"))
        assert.strictEqual(error.reason._tag, "RedisUnavailable")
        assert.isBelow((yield* Clock.currentTimeMillis) - started, 3_000)
        const interrupted = yield* Effect.timeoutOption(build(port, "1 minute"), "300 millis")
        assert.isTrue(Option.isNone(interrupted))
        assert.isBelow((yield* Clock.currentTimeMillis) - started, 5_000)
      }).pipe(Effect.scoped, Effect.timeout("15 seconds")), 20_000)
  }
})
