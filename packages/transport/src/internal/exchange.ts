/**
 * One exchange on an undici `Dispatcher` (its public `dispatch` handler API,
 * undici 7 and later) and the `HttpClientResponse` over it, built on Effect's
 * public interfaces only.
 *
 * @internal
 */
import { Effect, Exit, Inspectable, Option, Stream } from "effect"
import { Cookies, Headers, HttpClientError, HttpClientResponse, HttpIncomingMessage, UrlParams } from "effect/http"
import type { HttpClientRequest } from "effect/http"
import type { Socket } from "effect/socket"
import { pipeArguments } from "effect/Pipeable"
import type { Dispatcher } from "undici"
import * as NotSent from "./notSent.ts"
import { ResponseTooLarge } from "../ResponseTooLarge.ts"
import * as StrictUtf8 from "../StrictUtf8.ts"

type RawHeaders = Record<string, string | Array<string> | undefined>

// fatal: a body that is not UTF-8 (JSON is, RFC 8259) fails its read instead of becoming U+FFFD
const decoder = new TextDecoder("utf-8", { fatal: true })

/** Why an exchange was aborted by its own side. */
const interrupted = new Error("The request was interrupted")

/** The body of a response that is not UTF-8 (the client's own `text`: the transport decodes the bytes itself). */
class NotUtf8 extends Error {
  constructor(cause: unknown) {
    super("The response body is not UTF-8", { cause })
  }
}

/**
 * The handler of one dispatch: the head resumes `onHead` once the chunk
 * that carried it is read (a microtask later: a body that came with its head,
 * as an API's small bodies do, has fully arrived by then, and the reader
 * takes it without waiting); the body is collected as it arrives, up to
 * `limit` bytes (past it, or with a declared length past it, the exchange is
 * aborted and its body fails with a `ResponseTooLarge`), for whoever reads it.
 *
 * @internal
 */
export class Exchange implements Dispatcher.DispatchHandler {
  controller: Dispatcher.DispatchController | undefined = undefined
  aborted = false
  done = false
  error: Error | undefined = undefined
  chunks: Array<Uint8Array> = []
  /** Whether the one chunk kept is a buffer of the exchange's own (the body's bytes joined, or copied: {@link buffer}). */
  owned = false
  size = 0
  onHead: ((status: number, headers: RawHeaders) => void) | undefined
  onFail: ((error: Error) => void) | undefined
  /** The readers waiting for the body's end (each woken once, by its end or its failure). */
  waiters: Array<() => void> = []
  readonly limit: number

  /** The request the client was given: noted as started when undici starts it on a connected socket (nothing of it written before). */
  readonly given: HttpClientRequest.HttpClientRequest | undefined

  constructor(
    limit: number,
    onHead: (status: number, headers: RawHeaders) => void,
    onFail: (error: Error) => void,
    given?: HttpClientRequest.HttpClientRequest
  ) {
    this.limit = limit
    this.given = given
    this.onHead = onHead
    this.onFail = onFail
  }
  onRequestStart(controller: Dispatcher.DispatchController) {
    this.controller = controller
    if (this.given !== undefined) NotSent.start(this.given)
    if (this.aborted) controller.abort(interrupted)
  }
  onResponseStart(_: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | Array<string> | undefined>) {
    if (statusCode < 200) return
    const onHead = this.onHead
    this.onHead = undefined
    this.onFail = undefined
    // a declared length over the limit: the head is the response, reading its body fails
    if (Number(headers["content-length"]) > this.limit) this.fail(new ResponseTooLarge(this.limit))
    // after the rest of the chunk (a failure of the body meanwhile is the body's, as later)
    if (onHead !== undefined) queueMicrotask(() => onHead(statusCode, headers))
  }
  onResponseData(_: Dispatcher.DispatchController, chunk: Uint8Array) {
    this.size += chunk.length
    if (this.size > this.limit) return this.fail(new ResponseTooLarge(this.limit))
    this.chunks.push(chunk)
  }
  onResponseEnd() {
    if (this.error !== undefined) return
    this.done = true
    this.wake()
  }
  onResponseError(_: Dispatcher.DispatchController, error: Error) {
    if (this.done || this.error !== undefined) return
    this.error = error
    this.chunks = []
    const onFail = this.onFail
    this.onHead = undefined
    this.onFail = undefined
    if (onFail !== undefined) onFail(error)
    else this.wake()
  }
  /** Ends the exchange with `error`, releasing its socket. */
  fail(error: Error) {
    this.aborted = true
    this.controller?.abort(error)
    this.onResponseError(undefined as never, error)
  }
  /** Aborts the exchange unless it is over (an interrupted call); a reader still waiting gets the failure. */
  abort() {
    if (this.done || this.error !== undefined) return
    this.aborted = true
    this.onHead = undefined
    this.onFail = undefined
    this.controller?.abort(interrupted)
    this.onResponseError(undefined as never, interrupted)
  }
  private wake() {
    const waiters = this.waiters
    this.waiters = []
    for (const waiter of waiters) waiter()
  }
  bytes(): Uint8Array {
    if (this.chunks.length === 1) return this.chunks[0]!
    const out = new Uint8Array(this.size)
    let offset = 0
    for (const chunk of this.chunks) {
      out.set(chunk, offset)
      offset += chunk.length
    }
    this.chunks = [out]
    this.owned = true
    return out
  }
  /**
   * The body (fully arrived) in an `ArrayBuffer` of its own: the one
   * {@link bytes} made of several chunks, else a copy of the one chunk (a
   * view of undici's) that the exchange keeps in its place: one copy of the
   * body at most, made only when asked for.
   */
  buffer(): ArrayBuffer {
    const bytes = this.bytes()
    if (this.owned) return bytes.buffer as ArrayBuffer
    const out = copyOf(bytes)
    this.chunks = [new Uint8Array(out)]
    this.owned = true
    return out
  }
}

/**
 * `Headers` of undici's header record, a copy, as `Headers.fromInput` makes
 * it (names in lowercase, a repeated header joined with ", ", `undefined`
 * left out), without its array of entries and a new string per name: undici
 * gives the names in lowercase already.
 */
export const headersOf = (raw: RawHeaders): Headers.Headers => {
  const out: Record<string, string> = Headers.fromRecordUnsafe({})
  // its own names only (`for...in` would take inherited ones too)
  for (const name of Object.keys(raw)) {
    const value = raw[name]
    if (value === undefined) continue
    out[isLowerCase(name) ? name : name.toLowerCase()] = typeof value === "string" ? value : value.join(", ")
  }
  return out as Headers.Headers
}

/** Whether `name` has no uppercase ASCII letter and nothing else `toLowerCase` could change (beyond ASCII). */
const isLowerCase = (name: string): boolean => {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i)
    if ((c >= 65 && c <= 90) || c > 127) return false
  }
  return true
}

/** The bytes in an `ArrayBuffer` of their own (a chunk may be a view of a shared pool). */
const copyOf = (bytes: Uint8Array): ArrayBuffer => {
  const out = new Uint8Array(bytes.length)
  out.set(bytes)
  return out.buffer
}

/**
 * An `HttpClientResponse` over one {@link Exchange}: the body is read once
 * and kept; reading it waits for its end (readers waiting together all get
 * it; the last waiting reader to be interrupted aborts the exchange).
 *
 * @internal
 */
export class ExchangeResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpClientResponse.TypeId] = HttpClientResponse.TypeId
  readonly [HttpIncomingMessage.TypeId] = HttpIncomingMessage.TypeId
  readonly request: HttpClientRequest.HttpClientRequest
  readonly status: number
  readonly url: string
  readonly exchange: Exchange
  readonly source: RawHeaders
  private cachedHeaders: Headers.Headers | undefined = undefined
  private cachedText: string | undefined = undefined

  constructor(request: HttpClientRequest.HttpClientRequest, url: string, status: number, source: RawHeaders, exchange: Exchange) {
    super()
    this.request = request
    this.url = url
    this.status = status
    this.source = source
    this.exchange = exchange
  }
  /** Its `text` is strict UTF-8 (`decoder`): the transport takes a U+FFFD in it as the body's own. */
  get [StrictUtf8.symbol](): true {
    return true
  }
  pipe() {
    // eslint-disable-next-line prefer-rest-params
    return pipeArguments(this, arguments)
  }
  get headers(): Headers.Headers {
    return this.cachedHeaders ??= headersOf(this.source)
  }
  get cookies(): Cookies.Cookies {
    const header = this.source["set-cookie"]
    return header === undefined ? Cookies.empty : Cookies.fromSetCookie(header)
  }
  get remoteAddress(): Option.Option<string> {
    return Option.none()
  }
  private decodeError(description: string, cause?: unknown) {
    return new HttpClientError.HttpClientError({
      reason: new HttpClientError.DecodeError({ request: this.request, response: this, description, cause })
    })
  }
  private settled(): Effect.Effect<Uint8Array, HttpClientError.HttpClientError> | undefined {
    const error = this.exchange.error
    if (error instanceof ResponseTooLarge) return Effect.fail(this.decodeError(error.message, error))
    if (error !== undefined) {
      return Effect.fail(
        new HttpClientError.HttpClientError({
          reason: new HttpClientError.TransportError({ request: this.request, cause: error, description: error.message })
        })
      )
    }
    return this.exchange.done ? Effect.succeed(this.exchange.bytes()) : undefined
  }
  /** The body once it has fully arrived. */
  get bytes(): Effect.Effect<Uint8Array, HttpClientError.HttpClientError> {
    const exchange = this.exchange
    return Effect.suspend(() =>
      this.settled() ?? Effect.callback<Uint8Array, HttpClientError.HttpClientError>((resume) => {
        // the body may have ended since `suspend` looked (the fiber can yield in between)
        const now = this.settled()
        if (now !== undefined) return resume(now)
        const waiter = () => resume(this.settled()!)
        exchange.waiters.push(waiter)
        // an interrupted reader leaves; the last one to leave aborts the exchange
        return Effect.sync(() => {
          const index = exchange.waiters.indexOf(waiter)
          if (index >= 0) exchange.waiters.splice(index, 1)
          if (exchange.waiters.length === 0) exchange.abort()
        })
      })
    )
  }
  /** The body's bytes in a buffer of their own, the same on every read (as Effect's clients keep theirs), the only copy kept ({@link Exchange.buffer}). */
  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.HttpClientError> {
    // a body that has fully arrived (the common case, see `text`): at once
    if (this.exchange.done) return Exit.succeed(this.exchange.buffer())
    return Effect.map(this.bytes, () => this.exchange.buffer())
  }
  get text(): Effect.Effect<string, HttpClientError.HttpClientError> {
    if (this.cachedText !== undefined) return Exit.succeed(this.cachedText)
    // a body that has fully arrived (the common case: the head is handed on
    // once the chunk that carried it is read) is decoded once, here
    if (this.exchange.done) return this.decoded(this.exchange.bytes())
    return Effect.flatMap(this.bytes, (bytes) => this.cachedText !== undefined ? Exit.succeed(this.cachedText) : this.decoded(bytes))
  }
  /** The body's text, kept; a body that is not UTF-8 a `DecodeError` ({@link NotUtf8}). */
  private decoded(bytes: Uint8Array): Exit.Exit<string, HttpClientError.HttpClientError> {
    try {
      return Exit.succeed(this.cachedText = decoder.decode(bytes))
    } catch (cause) {
      const error = new NotUtf8(cause)
      return Exit.fail(this.decodeError(error.message, error))
    }
  }
  get json(): Effect.Effect<any, HttpClientError.HttpClientError> {
    return Effect.flatMap(this.text, (text) => {
      try {
        return Exit.succeed(text === "" ? null : JSON.parse(text))
      } catch (cause) {
        return Exit.fail(this.decodeError("the body is not JSON", cause))
      }
    })
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.HttpClientError> {
    return Effect.map(this.text, (text) => UrlParams.fromInput(new URLSearchParams(text)))
  }
  get formData(): Effect.Effect<FormData, HttpClientError.HttpClientError> {
    return Effect.flatMap(this.bytes, (bytes) =>
      Effect.tryPromise({
        try: () => new Response(copyOf(bytes), { headers: this.headers as Record<string, string> }).formData(),
        catch: (cause) => this.decodeError("the body is not form data", cause)
      }))
  }
  get stream(): Stream.Stream<Uint8Array, HttpClientError.HttpClientError> {
    return Stream.fromEffect(this.bytes)
  }
  get upgrade(): Effect.Effect<Socket.Socket, HttpClientError.HttpClientError> {
    return Effect.fail(
      new HttpClientError.HttpClientError({
        reason: new HttpClientError.StatusCodeError({ request: this.request, response: this, description: "this client does not upgrade connections" })
      })
    )
  }
  toJSON(): unknown {
    return { _id: "HttpClientResponse", request: this.request.toJSON(), status: this.status }
  }
}
