/**
 * The local redirect listener of the consent flow: an HTTP server on
 * 127.0.0.1 that waits for the request the authorization server redirects
 * the user's browser to, and answers it with a short page. Only a redirect
 * carrying the flow's `state` counts: any other request to `/callback` (a
 * stray hit, a forged or stale redirect) is answered 400 and ignored.
 *
 * @since 0.1.0
 */
import { Deferred, Effect } from "effect"
import type { Scope } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { SampleError } from "./SampleError.ts"

/**
 * What the redirect carried: `code` and `state`, or `error` (RFC 6749 4.1.2.1).
 *
 * @example
 * ```ts
 * import type { Callback } from "@connected-vehicle/sample/RedirectListener"
 *
 * const denied = (callback: Callback) => callback.error === "access_denied"
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Callback {
  readonly code: string | undefined
  readonly state: string | undefined
  readonly error: string | undefined
  readonly errorDescription: string | undefined
}

/**
 * A running listener.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { start } from "@connected-vehicle/sample/RedirectListener"
 *
 * const code = Effect.scoped(Effect.gen(function*() {
 *   const listener = yield* start({ port: 0, state: "f3a9c1" })
 *   return (yield* listener.callback).code
 * }))
 * ```
 * @since 0.1.0
 * @category models
 */
export interface RedirectListener {
  /** `http://127.0.0.1:PORT/callback`: the redirect URI to register and send. */
  readonly redirectUri: string
  /** The parameters of the first request to `/callback` with the expected `state`. */
  readonly callback: Effect.Effect<Callback>
}

/**
 * Starts a listener on 127.0.0.1 (`port` 0 picks a free port) that waits for
 * the redirect carrying `state`, closed with the scope.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as RedirectListener from "@connected-vehicle/sample/RedirectListener"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const listener = yield* RedirectListener.start({ port: 0, state: "st_123" })
 *   console.log(`redirect_uri=${listener.redirectUri}`)
 *   return yield* listener.callback
 * }))
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const start = (
  options: { readonly port: number; readonly state: string }
): Effect.Effect<RedirectListener, SampleError, Scope.Scope> =>
  Effect.gen(function*() {
    const received = yield* Deferred.make<Callback>()
    const server = yield* Effect.acquireRelease(
      Effect.callback<ReturnType<typeof createServer>, SampleError>((resume) => {
        const server = createServer((request, response) => {
          const url = new URL(request.url ?? "/", "http://127.0.0.1")
          if (url.pathname !== "/callback") {
            response.writeHead(404, { "content-type": "text/plain" }).end("Not found\n")
            return
          }
          const param = (name: string) => url.searchParams.get(name) ?? undefined
          if (param("state") !== options.state) {
            response.writeHead(400, { "content-type": "text/plain; charset=utf-8", connection: "close" }).end(
              "This redirect does not belong to the sign-in in progress (unknown state); it was ignored.\n"
            )
            return
          }
          const callback: Callback = {
            code: param("code"),
            state: param("state"),
            error: param("error"),
            errorDescription: param("error_description")
          }
          response.writeHead(200, { "content-type": "text/plain; charset=utf-8", connection: "close" }).end(
            callback.code === undefined
              ? `Authorization failed: ${callback.error ?? "no code"}. You can close this window.\n`
              : "Authorization received. You can close this window and return to the terminal.\n"
          )
          Deferred.doneUnsafe(received, Effect.succeed(callback))
        })
        server.once("error", (error) =>
          resume(Effect.fail(new SampleError({ reason: `Cannot listen on 127.0.0.1:${options.port}: ${error.message}` }))))
        server.listen(options.port, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const address = server.address() as AddressInfo
    return { redirectUri: `http://127.0.0.1:${address.port}/callback`, callback: Deferred.await(received) }
  })
