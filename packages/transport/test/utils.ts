import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { Effect } from "effect"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"

/**
 * A server on 127.0.0.1 (free port) that answers with `handler` and keeps its
 * requests and the most sockets open at once; closed with the scope.
 */
export const server = (handler: (request: IncomingMessage, response: ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly origin: string; readonly requests: Array<IncomingMessage>; readonly peak: () => number; readonly close: () => void }>((resume) => {
      const requests: Array<IncomingMessage> = []
      const sockets = new Set<Socket>()
      let peak = 0
      const s = createServer((request, response) => {
        requests.push(request)
        handler(request, response)
      })
      s.on("connection", (socket) => {
        sockets.add(socket)
        peak = Math.max(peak, sockets.size)
        socket.once("close", () => sockets.delete(socket))
      })
      s.listen(0, "127.0.0.1", () => {
        const { port } = s.address() as AddressInfo
        resume(Effect.succeed({
          origin: `http://127.0.0.1:${port}`,
          requests,
          peak: () => peak,
          close: () => {
            for (const socket of sockets) socket.destroy()
            s.close()
          }
        }))
      })
    }),
    (s) => Effect.sync(() => s.close())
  )

/** The failure of `self`, its reason when it is a `ConnectedVehicleError`. */
export const flipReason = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.map(Effect.flip(self), (e) => reasonOf(e))

/** Short backoff for tests. */
export const fast = { retry: { initialDelay: 5, maxDelay: 20 } }
