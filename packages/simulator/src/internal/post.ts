/**
 * One webhook delivery attempt over HTTP(S): `POST` of the body on a fresh
 * connection (no keep-alive pool: a receiver that stops never holds a socket of
 * the simulator), the status and, when the caller reads it, at most 64 KiB of
 * the answer. The connection is closed as soon as the answer is decided (the
 * response head, or the body read): a receiver that is slow to finish its body
 * holds no socket of the simulator. An unsolicited `101 Switching Protocols`
 * is decided by its head too (status 101, a failure for the caller), its
 * socket destroyed. Interrupting the effect (the 15 s limit, the simulator's
 * scope closing) destroys the request.
 *
 * @internal
 */
import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import type { IncomingMessage } from "node:http"
import { request as httpsRequest } from "node:https"
import type { Socket } from "node:net"

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

/**
 * POSTs `body` to `url` with `headers`. `readBody` says, from the status,
 * whether the answer's body is wanted: if not, the answer is the response head
 * (`body` empty) and the rest is not read; if so, the body up to its end or
 * its first 64 KiB.
 */
export const post = (
  url: URL,
  body: Uint8Array,
  headers: Readonly<Record<string, string>>,
  readBody: (status: number) => boolean
): Effect.Effect<Answer, PostFailure> =>
  Effect.callback<Answer, PostFailure>((resume) => {
    let settled = false
    let request: ReturnType<typeof httpRequest> | undefined
    const settle = (effect: Effect.Effect<Answer, PostFailure>) => {
      if (settled) return
      settled = true
      // the answer is decided: release the socket (a body still coming is not read)
      request?.destroy()
      resume(effect)
    }
    const onResponse = (response: IncomingMessage) => {
      const status = response.statusCode ?? 0
      const answer = (text: string) => Effect.succeed({ status, contentType: response.headers["content-type"], body: text })
      response.on("error", (error: NodeJS.ErrnoException) => settle(Effect.fail(new PostFailure(error.code ?? error.message))))
      response.on("aborted", () => settle(Effect.fail(new PostFailure("the answer was cut off"))))
      if (!readBody(status)) return settle(answer(""))
      const chunks: Array<Buffer> = []
      let size = 0
      const done = () => settle(answer(Buffer.concat(chunks).subarray(0, ANSWER_LIMIT).toString("utf8")))
      response.on("data", (chunk: Buffer) => {
        chunks.push(chunk)
        size += chunk.length
        if (size >= ANSWER_LIMIT) done()
      })
      response.on("end", done)
    }
    const send = url.protocol === "https:" ? httpsRequest : httpRequest
    // the port passed as the URL names it: Node would take a port 0 for the scheme's default (80, 443)
    const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)
    if (port === 0) {
      settle(Effect.fail(new PostFailure("the URL names port 0, where no receiver listens: nothing was sent")))
      return
    }
    try {
      request = send(url, {
        method: "POST",
        port,
        agent: false,
        headers: { ...headers, "content-length": String(body.byteLength), connection: "close" }
      }, onResponse)
    } catch (error) {
      settle(Effect.fail(new PostFailure(error instanceof Error ? error.message : String(error))))
      return
    }
    // a 101 (an upgrade no one asked for) has no answer to read: the socket is handed
    // over, so it is destroyed here and the attempt settles at once with that status
    request.on("upgrade", (response: IncomingMessage, socket: Socket) => {
      socket.destroy()
      settle(Effect.succeed({ status: response.statusCode ?? 101, contentType: response.headers["content-type"], body: "" }))
    })
    request.on("error", (error: NodeJS.ErrnoException) =>
      settle(Effect.fail(new PostFailure(error.code === undefined ? error.message : `${error.code} (${error.message})`))))
    request.end(body)
    return Effect.sync(() => {
      settled = true
      request?.destroy()
    })
  })
