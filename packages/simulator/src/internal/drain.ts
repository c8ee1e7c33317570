/**
 * The body of a request answered without reading it (such as a 401) is read
 * and discarded before the answer, so the connection stays usable and says
 * so truthfully.
 *
 * @internal
 */
import { Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import { MAX_BODY_BYTES } from "./headers.ts"


/**
 * A request body the handler did not read (a request answered early, such as
 * a 401) is read and discarded before the response is written, up to
 * {@link MAX_BODY_BYTES}, so the response keeps the connection alive and says
 * so truthfully. Waiting for the body is bounded by this (real) time.
 */
const DRAIN_TIMEOUT_MILLIS = 10_000

/**
 * What became of the request body before the response: `complete` (read or
 * absent: the connection stays usable), `tooLarge` (over
 * {@link MAX_BODY_BYTES}), or `close` (a client waiting for `100 Continue`, a
 * body that did not finish in time, a client gone): the answer then closes
 * the connection.
 */
export const drainBody = (request: HttpServerRequest.HttpServerRequest, status: number): Effect.Effect<"complete" | "tooLarge" | "close"> => {
  const source = request.source as {
    readonly complete?: boolean
    readonly readableEnded?: boolean
    readonly destroyed?: boolean
    resume?(): void
    pause?(): void
    on?(event: string, listener: (...args: Array<any>) => void): unknown
    off?(event: string, listener: (...args: Array<any>) => void): unknown
  }
  if (source === null || typeof source !== "object" || typeof source.resume !== "function") return Effect.succeed("complete")
  if (source.complete === true || source.readableEnded === true) return Effect.succeed("complete")
  if (source.destroyed === true) return Effect.succeed("close")
  const length = request.headers["content-length"]
  // No body by HTTP framing (RFC 9112 section 6.3): nothing to wait for.
  if ((length === undefined || Number(length) === 0) && request.headers["transfer-encoding"] === undefined) {
    return Effect.succeed("complete")
  }
  if (status === 413 || (length !== undefined && !(Number(length) <= MAX_BODY_BYTES))) return Effect.succeed("tooLarge")
  // The client waits for `100 Continue` before it sends the body: do not wait for it.
  if (/100-continue/i.test(request.headers["expect"] ?? "")) return Effect.succeed("close")
  return Effect.callback<"complete" | "tooLarge" | "close">((resume) => {
    let bytes = 0
    const done = (outcome: "complete" | "tooLarge" | "close") => {
      cleanup()
      resume(Effect.succeed(outcome))
    }
    const onData = (chunk: Uint8Array) => {
      bytes += chunk.length
      if (bytes > MAX_BODY_BYTES) {
        source.pause!()
        done("tooLarge")
      }
    }
    const onEnd = () => done("complete")
    const onGone = () => done("close")
    const timer = setTimeout(onGone, DRAIN_TIMEOUT_MILLIS)
    const cleanup = () => {
      clearTimeout(timer)
      source.off!("data", onData)
      source.off!("end", onEnd)
      source.off!("aborted", onGone)
      source.off!("close", onGone)
      source.off!("error", onGone)
    }
    source.on!("data", onData)
    source.on!("end", onEnd)
    source.on!("aborted", onGone)
    source.on!("close", onGone)
    source.on!("error", onGone)
    source.resume!()
    return Effect.sync(cleanup)
  })
}
