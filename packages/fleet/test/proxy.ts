/**
 * A TCP proxy on 127.0.0.1 to a local port that can be frozen: bytes held,
 * sockets kept open, new connections accepted and never answered (a stalled
 * server, or a partition).
 */
import { connect, createServer, type Socket } from "node:net"
import { Effect } from "effect"

/** The proxy: its port, and `freeze`/`thaw`; closed with the scope. */
export interface FreezableProxy {
  readonly port: number
  readonly freeze: () => void
  readonly thaw: () => void
}

export const freezableProxy = (targetPort: number) =>
  Effect.acquireRelease(
    Effect.callback<FreezableProxy & { readonly close: () => void }>((resume) => {
      let frozen = false
      const pairs: Array<[Socket, Socket]> = []
      const held: Array<Socket> = []
      const server = createServer((client) => {
        client.on("error", () => {})
        if (frozen) return void held.push(client) // accepted, never answered
        const upstream = connect(targetPort, "127.0.0.1")
        pairs.push([client, upstream])
        client.pipe(upstream)
        upstream.pipe(client)
        client.on("error", () => upstream.destroy())
        upstream.on("error", () => client.destroy())
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          port: (server.address() as { port: number }).port,
          freeze: () => {
            frozen = true
            for (const [a, b] of pairs) {
              a.pause()
              b.pause()
            }
          },
          thaw: () => {
            frozen = false
            for (const [a, b] of pairs) {
              a.resume()
              b.resume()
            }
          },
          close: () => {
            for (const socket of held) socket.destroy()
            for (const [a, b] of pairs) {
              a.destroy()
              b.destroy()
            }
            server.close()
          }
        })))
    }),
    (proxy) => Effect.sync(() => proxy.close())
  )
