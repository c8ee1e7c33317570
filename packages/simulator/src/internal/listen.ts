/**
 * The loopback servers of a simulator: Node's request timeouts, the fast
 * path in front of the application, the hardening, and the open
 * connections.
 *
 * @internal
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Effect } from "effect"
import type { Scope } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Origins } from "../Env.ts"
import type { State } from "../State.ts"
import { hostPort } from "./address.ts"
import type * as FastPath from "./fastPath.ts"
import { harden } from "./harden.ts"
import type { Durations } from "./options.ts"
import { wholeMillis } from "./options.ts"

/**
 * Node's server options for the request timeouts (checked: the head's is at
 * most the request's, `options.headersTimeoutMillis`). A request whose head or
 * whole self has not arrived in time is answered 408 by the client-error
 * path (`harden`). Node checks the connections every
 * `connectionsCheckingInterval`: a quarter of the shorter timeout, between
 * 25 ms and 1 s (Node's default, 30 s, would let a slow client hold a
 * connection up to 30 s past its timeout). 0 turns a timeout off (the head's
 * is then the request's); a timeout that is not whole milliseconds rounds
 * up (`"500 micros"` is 1 ms, never 0, no limit).
 */
export const timeoutOptions = (durations: Durations) => {
  const requestTimeout = wholeMillis(durations.requestTimeout)
  let headersTimeout = wholeMillis(durations.headersTimeout)
  if (requestTimeout > 0 && headersTimeout === 0) headersTimeout = requestTimeout
  const shortest = Math.min(...[headersTimeout, requestTimeout].filter((t) => t > 0), 4_000)
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.max(25, Math.min(1_000, Math.floor(shortest / 4))) }
}

/** The number of open connections (sockets) of a server. */
export const openConnections = (server: Server) =>
  new Promise<number>((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)))

/**
 * Puts the fast path (`internal/fastPath`) in front of the application's
 * `request` listener: the listener runs only for the requests the fast path
 * declines. Undone when the scope closes, before the server stops serving.
 */
const withFastPath = (node: Server, fast: FastPath.FastPath) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const listeners = node.listeners("request") as Array<(request: IncomingMessage, response: ServerResponse) => void>
      const front = (request: IncomingMessage, response: ServerResponse) => {
        if (fast(request, response)) return
        for (const listener of listeners) listener.call(node, request, response)
      }
      for (const listener of listeners) node.off("request", listener)
      node.on("request", front)
      return { front, listeners }
    }),
    ({ front, listeners }) =>
      Effect.sync(() => {
        node.off("request", front)
        for (const listener of listeners) node.on("request", listener)
      })
  )

/** A loopback server of the application, with the fast path and the hardening; its URL and Node server. */
export const listen = Effect.fnUntraced(function*(
  handler: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope>,
  fast: FastPath.FastPath,
  env: { readonly state: State; readonly origins: Origins; readonly legacySunset?: number | undefined },
  timeouts: ReturnType<typeof timeoutOptions>,
  host: string,
  port: number
) {
  // `Host` is checked by the application (an envelope, not Node's bare 400).
  const node = createServer({ requireHostHeader: false, ...timeouts })
  const server = yield* NodeHttpServer.make(() => node, { port, host, gracefulShutdownTimeout: 0 })
  yield* server.serve(handler)
  yield* withFastPath(node, fast)
  harden(node, env.state, env.origins, env.legacySunset)
  const address = server.address
  const url = `http://${hostPort(host, address._tag === "UnixPathAddress" ? 0 : address.port)}`
  return { url, node }
})
