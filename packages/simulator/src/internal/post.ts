/**
 * One webhook delivery attempt over HTTP(S): `POST` of the body on a fresh
 * connection (no keep-alive pool: a receiver that stops never holds a socket of
 * the simulator), the status and at most 64 KiB of the answer. Interrupting
 * the effect (the 15 s limit, the simulator's scope closing) destroys the
 * request.
 *
 * @internal
 */
import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import type { IncomingMessage } from "node:http"
import { request as httpsRequest } from "node:https"

/** The answer of the receiver. */
export interface Answer {
  readonly status: number
  readonly contentType: string | undefined
  readonly body: string
}

/** Why no answer arrived (a connection error): the Node error code or message. */
export class PostFailure {
  readonly _tag = "PostFailure"
  readonly reason: string
  constructor(reason: string) {
    this.reason = reason
  }
}

const ANSWER_LIMIT = 64 * 1024

/** POSTs `body` to `url` with `headers`. */
export const post = (
  url: URL,
  body: Uint8Array,
  headers: Readonly<Record<string, string>>
): Effect.Effect<Answer, PostFailure> =>
  Effect.callback<Answer, PostFailure>((resume) => {
    let settled = false
    const settle = (effect: Effect.Effect<Answer, PostFailure>) => {
      if (settled) return
      settled = true
      resume(effect)
    }
    const onResponse = (response: IncomingMessage) => {
      const chunks: Array<Buffer> = []
      let size = 0
      response.on("data", (chunk: Buffer) => {
        if (size < ANSWER_LIMIT) chunks.push(chunk)
        size += chunk.length
      })
      response.on("end", () =>
        settle(Effect.succeed({
          status: response.statusCode ?? 0,
          contentType: response.headers["content-type"],
          body: Buffer.concat(chunks).subarray(0, ANSWER_LIMIT).toString("utf8")
        })))
      response.on("error", (error: NodeJS.ErrnoException) => settle(Effect.fail(new PostFailure(error.code ?? error.message))))
      response.on("aborted", () => settle(Effect.fail(new PostFailure("the answer was cut off"))))
    }
    const send = url.protocol === "https:" ? httpsRequest : httpRequest
    let request: ReturnType<typeof httpRequest>
    try {
      request = send(url, {
        method: "POST",
        agent: false,
        headers: { ...headers, "content-length": String(body.byteLength), connection: "close" }
      }, onResponse)
    } catch (error) {
      settle(Effect.fail(new PostFailure(error instanceof Error ? error.message : String(error))))
      return
    }
    request.on("error", (error: NodeJS.ErrnoException) =>
      settle(Effect.fail(new PostFailure(error.code === undefined ? error.message : `${error.code} (${error.message})`))))
    request.end(body)
    return Effect.sync(() => {
      settled = true
      request.destroy()
    })
  })
