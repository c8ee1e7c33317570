/**
 * A scripted HTTP server on 127.0.0.1 for the behaviour suite.
 *
 * @internal
 */
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { Effect } from "effect"
import type { Scope } from "effect"

/** @internal */
export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
  /** Resolved when the client's connection of this request closes. */
  readonly closed: Promise<void>
}

/** @internal */
export interface TestServer {
  readonly origin: string
  readonly received: Array<Received>
  /** Sockets currently open to the server. */
  readonly openSockets: () => number
  /** The most sockets open at once. */
  readonly peakSockets: () => number
}

/**
 * A server answering with `handler` (given the request and its whole body),
 * closed with the scope (open connections destroyed).
 *
 * @internal
 */
export const make = (
  handler: (request: IncomingMessage, body: string, response: ServerResponse) => void
): Effect.Effect<TestServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly server: TestServer; readonly close: () => void }>((resume) => {
      const received: Array<Received> = []
      const sockets = new Set<Socket>()
      let peak = 0
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        const closed = new Promise<void>((resolve) => request.socket.once("close", () => resolve()))
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8")
          received.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body, closed })
          handler(request, body, response)
        })
      })
      server.on("connection", (socket) => {
        sockets.add(socket)
        peak = Math.max(peak, sockets.size)
        socket.once("close", () => sockets.delete(socket))
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({
          server: { origin: `http://127.0.0.1:${port}`, received, openSockets: () => sockets.size, peakSockets: () => peak },
          close: () => {
            for (const socket of sockets) socket.destroy()
            server.close()
          }
        }))
      })
    }),
    ({ close }) => Effect.sync(close)
  ).pipe(Effect.map(({ server }) => server))

/**
 * The origin of a port on 127.0.0.1 nothing listens on (a server's free
 * port, the server closed): connecting to it is refused.
 *
 * @internal
 */
export const refusedOrigin: Effect.Effect<string> = Effect.callback<string>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(`http://127.0.0.1:${port}`)))
  })
})
