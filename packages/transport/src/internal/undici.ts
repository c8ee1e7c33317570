/**
 * @internal
 */
import { Effect, Exit, Inspectable, Layer, Option, Stream } from "effect"
import { Context } from "effect"
import { Cookies, Headers, HttpClient, HttpClientError, UrlParams } from "effect/http"
import type { HttpClientRequest, HttpClientResponse } from "effect/http"
import { pipeArguments } from "effect/Pipeable"

/**
 * The part of undici's `Dispatcher` the lean client uses (undici 7 and later:
 * the controller-based handler API).
 *
 * @internal
 */
export interface Dispatcher {
  readonly dispatch: (options: DispatchOptions, handler: DispatchHandler) => boolean
}

interface DispatchOptions {
  readonly origin: string
  readonly path: string
  readonly method: string
  readonly headers: Record<string, string>
  readonly body: string | Uint8Array | null
  readonly headersTimeout: number
  readonly bodyTimeout: number
}

interface DispatchController {
  readonly abort: (reason: Error) => void
}

interface DispatchHandler {
  readonly onRequestStart: (controller: DispatchController, context: unknown) => void
  readonly onResponseStart: (
    controller: DispatchController,
    statusCode: number,
    headers: Record<string, string | ReadonlyArray<string> | undefined>,
    statusMessage?: string
  ) => void
  readonly onResponseData: (controller: DispatchController, chunk: Uint8Array) => void
  readonly onResponseEnd: (controller: DispatchController, trailers: unknown) => void
  readonly onResponseError: (controller: DispatchController, error: Error) => void
}

/**
 * The part of `@effect/platform-node/NodeHttpClient` the lean client is
 * built from: the full client without its dispatcher, the dispatcher layer
 * and service, and the fiber's undici options.
 *
 * @internal
 */
export interface NodeUndiciParts {
  readonly Dispatcher: Context.Key<any, Dispatcher>
  readonly layerDispatcher: Layer.Layer<any>
  readonly layerUndiciNoDispatcher: Layer.Layer<HttpClient.HttpClient, never, any>
  readonly UndiciOptions: Context.Reference<Record<string, unknown>>
}

const aborted = new Error("The request was interrupted")

/**
 * The timeout of one attempt, handed to the lean client by the transport
 * instead of running the attempt in a child fiber with a timer: the client
 * arms one timer for the exchange (request to the end of the body); when it
 * fires, `timedOut` is set, the exchange is aborted and the call fails (the
 * transport turns that failure into `RequestTimeout`). The transport reads
 * every body whole: given one, the lean client hands the response over once
 * its body has fully arrived (one resumption of the fiber per exchange).
 *
 * @internal
 */
export interface ExchangeTimeout {
  readonly millis: number
  timedOut: boolean
  /** The response head, once it has arrived (the body is read within the timeout too). */
  response?: HttpClientResponse.HttpClientResponse | undefined
}

/**
 * The {@link ExchangeTimeout} of the current attempt, if the transport gave one.
 *
 * @internal
 */
export const CurrentExchangeTimeout = Context.Reference<ExchangeTimeout | undefined>(
  "@connected-vehicle/transport/internal/undici/CurrentExchangeTimeout",
  { defaultValue: () => undefined }
)

/** The error an exchange fails with when its timer fires. */
export const timeoutError = new Error("The attempt timed out")

const LeanTypeId = "~@connected-vehicle/transport/internal/undici/Lean"

/**
 * What the transport needs to send a plain request on the lean client's
 * dispatcher itself (see {@link send}).
 *
 * @internal
 */
export interface LeanParts {
  readonly dispatcher: Dispatcher
  /** The fiber's undici options: a request is plain only when they are empty. */
  readonly undiciOptions: Context.Reference<Record<string, unknown>>
}

/**
 * The parts of the lean client, if `client` is one (it honours
 * {@link CurrentExchangeTimeout} for every request it is given, itself or
 * around the full client).
 *
 * @internal
 */
export const leanPartsOf = (client: HttpClient.HttpClient): LeanParts | undefined =>
  (client as unknown as { readonly [LeanTypeId]?: LeanParts })[LeanTypeId]

const decoder = new TextDecoder()

/**
 * The deadlines of the exchanges in flight, on one Node timer set for the
 * earliest: arming an exchange is a set insertion (the timer is moved only
 * when the new deadline comes first), finishing one a deletion. Calls one at
 * a time with the same timeout never touch the timer after the first: it
 * fires at the first deadline, finds those exchanges over, and is set again
 * for the earliest one still in flight, if any.
 */
const Deadlines = {
  active: new Set<Exchange>(),
  timer: undefined as ReturnType<typeof setTimeout> | undefined,
  at: Number.POSITIVE_INFINITY,
  add(exchange: Exchange, deadline: number) {
    exchange.deadline = deadline
    this.active.add(exchange)
    if (deadline < this.at) this.schedule(deadline)
  },
  remove(exchange: Exchange) {
    this.active.delete(exchange)
  },
  schedule(deadline: number) {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.at = deadline
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.ceil(deadline - performance.now())))
    // an exchange in flight keeps the process alive by its socket, not by this timer
    this.timer.unref?.()
  },
  fire() {
    this.timer = undefined
    this.at = Number.POSITIVE_INFINITY
    const now = performance.now()
    let next = Number.POSITIVE_INFINITY
    const expired: Array<Exchange> = []
    for (const exchange of this.active) {
      if (exchange.deadline <= now) expired.push(exchange)
      else if (exchange.deadline < next) next = exchange.deadline
    }
    for (const exchange of expired) {
      this.active.delete(exchange)
      exchange.expire()
    }
    if (next !== Number.POSITIVE_INFINITY) this.schedule(next)
  }
}

/**
 * One exchange on the dispatcher: the response head resumes `onHead`; the
 * body is collected as it arrives (JSON bodies of an API: nothing is
 * streamed) and handed to whoever waits for it.
 */
class Exchange implements DispatchHandler {
  /** When the exchange times out (`performance.now()` time), while it is in {@link Deadlines}. */
  deadline = Number.POSITIVE_INFINITY
  timeout: ExchangeTimeout | undefined = undefined
  controller: DispatchController | undefined = undefined
  interrupted = false
  done = false
  error: Error | undefined = undefined
  chunks: Array<Uint8Array> = []
  size = 0
  onHead: ((status: number, headers: Record<string, string | ReadonlyArray<string> | undefined>) => void) | undefined
  onFail: ((error: Error) => void) | undefined
  onBody: (() => void) | undefined = undefined

  constructor(
    onHead: (status: number, headers: Record<string, string | ReadonlyArray<string> | undefined>) => void,
    onFail: (error: Error) => void
  ) {
    this.onHead = onHead
    this.onFail = onFail
  }

  onRequestStart(controller: DispatchController) {
    this.controller = controller
    if (this.interrupted) controller.abort(aborted)
  }
  onResponseStart(_: DispatchController, statusCode: number, headers: Record<string, string | ReadonlyArray<string> | undefined>) {
    if (statusCode < 200) return
    const onHead = this.onHead
    this.onHead = undefined
    this.onFail = undefined
    onHead?.(statusCode, headers)
  }
  onResponseData(_: DispatchController, chunk: Uint8Array) {
    this.chunks.push(chunk)
    this.size += chunk.length
  }
  onResponseEnd() {
    if (this.error !== undefined) return
    this.done = true
    if (this.timeout !== undefined) Deadlines.remove(this)
    this.onBody?.()
  }
  onResponseError(_: DispatchController, error: Error) {
    if (this.done || this.error !== undefined) return
    if (this.timeout !== undefined) Deadlines.remove(this)
    this.error = error
    const onFail = this.onFail
    this.onHead = undefined
    this.onFail = undefined
    if (onFail !== undefined) onFail(error)
    else this.onBody?.()
  }
  /** Fails the exchange with {@link timeoutError} after `timeout.millis`, unless it is over by then. */
  arm(timeout: ExchangeTimeout) {
    this.timeout = timeout
    Deadlines.add(this, performance.now() + timeout.millis)
  }
  /** The deadline passed (see {@link Deadlines}). */
  expire() {
    if (this.done || this.error !== undefined) return
    this.timeout!.timedOut = true
    this.interrupted = true // not sent yet: never
    this.controller?.abort(timeoutError)
    this.onResponseError(undefined as never, timeoutError)
  }
  /** Aborts the exchange unless it is over. */
  abort() {
    if (this.timeout !== undefined) Deadlines.remove(this)
    if (this.done || this.error !== undefined) return
    this.interrupted = true
    this.onHead = undefined
    this.onFail = undefined
    this.onBody = undefined
    this.controller?.abort(aborted)
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
    return out
  }
}

const HeadersProto = Object.getPrototypeOf(Headers.empty) as object

/**
 * `Headers` of undici's header record (lower-case names already; a repeated
 * header joined with ", "), what `Headers.fromInput` makes of it, without its
 * copy of the entries and case folding.
 */
const headersOf = (raw: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>): Headers.Headers => {
  const out: Record<string, string> = Object.create(HeadersProto)
  for (const key in raw) {
    // own keys only: a key added to `Object.prototype` is not a header
    if (!Object.hasOwn(raw, key)) continue
    const value = raw[key]
    if (typeof value === "string") out[key] = value
    else if (value !== undefined) out[key] = value.join(", ")
  }
  return out as Headers.Headers
}

/** The bytes in an `ArrayBuffer` of their own (a chunk may be a view of a shared pool). */
const copyOf = (bytes: Uint8Array): ArrayBuffer => {
  const out = new Uint8Array(bytes.length)
  out.set(bytes)
  return out.buffer
}

/** An `HttpClientResponse` over one {@link Exchange}: the body is read once and kept. */
export class LeanResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly ["~effect/http/HttpClientResponse"] = "~effect/http/HttpClientResponse" as const
  readonly ["~effect/http/HttpIncomingMessage"] = "~effect/http/HttpIncomingMessage" as const
  readonly request: HttpClientRequest.HttpClientRequest
  readonly status: number
  readonly url: string
  readonly exchange: Exchange
  readonly source: Record<string, string | ReadonlyArray<string> | undefined>
  cachedHeaders: Headers.Headers | undefined = undefined
  cachedText: string | undefined = undefined

  constructor(
    request: HttpClientRequest.HttpClientRequest,
    url: string,
    status: number,
    source: Record<string, string | ReadonlyArray<string> | undefined>,
    exchange: Exchange
  ) {
    super()
    this.request = request
    this.url = url
    this.status = status
    this.source = source
    this.exchange = exchange
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
    return header === undefined ? Cookies.empty : Cookies.fromSetCookie(header as Iterable<string> | string)
  }
  get remoteAddress(): Option.Option<string> {
    return Option.none()
  }
  decodeError(description: string, cause?: unknown) {
    return new HttpClientError.HttpClientError({
      reason: new HttpClientError.DecodeError({ request: this.request, response: this, description, cause })
    })
  }
  /** The body once it has fully arrived; interrupting the wait aborts the exchange. */
  get arrayBufferBytes(): Effect.Effect<Uint8Array, HttpClientError.HttpClientError> {
    const exchange = this.exchange
    const settled = (): Effect.Effect<Uint8Array, HttpClientError.HttpClientError> | undefined =>
      exchange.error !== undefined
        ? Effect.fail(
          new HttpClientError.HttpClientError({
            reason: new HttpClientError.TransportError({ request: this.request, cause: exchange.error, description: exchange.error.message })
          })
        )
        : exchange.done
        ? Effect.succeed(exchange.bytes())
        : undefined
    return Effect.suspend(() =>
      settled() ?? Effect.callback<Uint8Array, HttpClientError.HttpClientError>((resume) => {
        exchange.onBody = () => {
          exchange.onBody = undefined
          resume(settled()!)
        }
        return Effect.sync(() => {
          exchange.onBody = undefined
          exchange.abort()
        })
      })
    )
  }
  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.HttpClientError> {
    return Effect.map(this.arrayBufferBytes, copyOf)
  }
  get text(): Effect.Effect<string, HttpClientError.HttpClientError> {
    if (this.cachedText !== undefined) return Effect.succeed(this.cachedText)
    return Effect.map(this.arrayBufferBytes, (bytes) => this.cachedText ??= decoder.decode(bytes))
  }
  parse(text: string): Exit.Exit<any, HttpClientError.HttpClientError> {
    try {
      return Exit.succeed(text === "" ? null : JSON.parse(text))
    } catch (cause) {
      return Exit.fail(this.decodeError("the body is not JSON", cause))
    }
  }
  /** The body parsed as JSON, once it has fully arrived (else `undefined`). */
  jsonNow(): Exit.Exit<any, HttpClientError.HttpClientError> | undefined {
    const exchange = this.exchange
    return exchange.done && exchange.error === undefined
      ? this.parse(this.cachedText ??= decoder.decode(exchange.bytes()))
      : undefined
  }
  get json(): Effect.Effect<any, HttpClientError.HttpClientError> {
    // the common case: the body is all there when the decoder asks for it
    if (this.exchange.done && this.exchange.error === undefined) return Effect.suspend(() => this.jsonNow()!)
    return Effect.flatMap(this.text, (text) => this.parse(text))
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.HttpClientError> {
    return Effect.map(this.text, (text) => UrlParams.fromInput(new URLSearchParams(text.replace(/^\?/, "%3F"))))
  }
  get formData(): Effect.Effect<FormData, HttpClientError.HttpClientError> {
    return Effect.flatMap(this.arrayBufferBytes, (bytes) =>
      Effect.tryPromise({
        try: () => new Response(copyOf(bytes), { headers: this.headers as Record<string, string> }).formData(),
        catch: (cause) => this.decodeError("the body is not form data", cause)
      }))
  }
  get stream(): Stream.Stream<Uint8Array, HttpClientError.HttpClientError> {
    return Stream.fromEffect(this.arrayBufferBytes)
  }
  get upgrade(): Effect.Effect<never, HttpClientError.HttpClientError> {
    return Effect.fail(
      new HttpClientError.HttpClientError({
        reason: new HttpClientError.StatusCodeError({ request: this.request, response: this, description: "no upgrade was asked" })
      })
    )
  }
  toJSON(): unknown {
    return { _id: "HttpClientResponse", request: this.request.toJSON(), status: this.status }
  }
}

/** The request's body as undici takes it, or `undefined` when the full client must send it. */
export const bodyOf = (request: HttpClientRequest.HttpClientRequest): string | Uint8Array | null | undefined => {
  const body = request.body
  switch (body._tag) {
    case "Empty":
      return null
    case "Uint8Array":
      return body.body
    case "Raw":
      return typeof body.body === "string" || body.body instanceof Uint8Array ? body.body : undefined
    default:
      return undefined
  }
}

/** @internal */
export const isEmpty = (record: Record<string, unknown>): boolean => {
  for (const _ in record) return false
  return true
}

/**
 * Sends a plain request (see {@link bodyOf}) on the dispatcher: `onResponse`
 * gets the response at its head, or, with a `timeout`, once its whole body has
 * arrived (one timer for the exchange, see {@link ExchangeTimeout}); `onError`
 * gets a failure before that. The exchange (to abort it), or `undefined` when
 * the URL is invalid (`onError` has been called).
 *
 * @internal
 */
export const send = (
  dispatcher: Dispatcher,
  request: HttpClientRequest.HttpClientRequest,
  body: string | Uint8Array | null,
  timeout: ExchangeTimeout | undefined,
  onResponse: (response: LeanResponse) => void,
  onError: (error: HttpClientError.HttpClientError) => void
): Exchange | undefined => {
  let url: URL
  try {
    url = new URL(request.url)
    const params = request.urlParams.params
    for (let i = 0; i < params.length; i++) {
      const [key, value] = params[i]!
      if (value !== undefined) url.searchParams.append(key, String(value))
    }
  } catch (cause) {
    onError(new HttpClientError.HttpClientError({ reason: new HttpClientError.InvalidUrlError({ request, cause }) }))
    return undefined
  }
  const href = url.href
  const exchange: Exchange = new Exchange(
    timeout === undefined
      ? (status, headers) => onResponse(new LeanResponse(request, href, status, headers, exchange))
      // the transport's exchange (it reads every body whole): handed over
      // once the body is all there, one resumption instead of one for the
      // head and one for the body (a body that fails to arrive, or times
      // out, fails when it is read, as it would have after the head)
      : (status, headers) => {
        const response = new LeanResponse(request, href, status, headers, exchange)
        timeout.response = response
        exchange.onBody = () => {
          exchange.onBody = undefined
          onResponse(response)
        }
      },
    (cause) =>
      onError(
        new HttpClientError.HttpClientError({
          reason: new HttpClientError.TransportError({ request, cause, description: cause.message })
        })
      )
  )
  if (timeout !== undefined) exchange.arm(timeout)
  try {
    dispatcher.dispatch({
      origin: url.origin,
      path: url.pathname + url.search,
      method: request.method,
      headers: request.headers,
      body,
      // timeouts are the transport's (one timer per attempt)
      headersTimeout: 60 * 60 * 1000,
      bodyTimeout: 0
    }, exchange)
  } catch (cause) {
    exchange.onResponseError(undefined as never, cause instanceof Error ? cause : new Error(String(cause)))
  }
  return exchange
}

/**
 * An `HttpClient` on undici's dispatcher that sends a request itself when
 * Effect's `HttpClient` would make no span for it (`TracerDisabledWhen`, as the
 * transport sets it unless `httpSpans`) and it is plain (no upgrade, a body
 * that is empty, bytes or a string, no fiber-level undici options): one
 * `dispatch` with a handler, no `AbortController`, no abort listener, no
 * stream for the body (collected as it arrives, read once). Every other
 * request goes to `full` (`NodeHttpClient`'s undici client on the same
 * dispatcher). Interrupting a call aborts its exchange, before or after the
 * response head.
 *
 * @internal
 */
export const makeLean = (
  dispatcher: Dispatcher,
  full: HttpClient.HttpClient,
  undiciOptions: Context.Reference<Record<string, unknown>>
): HttpClient.HttpClient =>
  Object.assign(HttpClient.makeWith(
    (requestEffect) =>
      Effect.flatMap(requestEffect, (request) =>
        Effect.withFiber((fiber) => {
          const body = bodyOf(request)
          if (
            body === undefined ||
            request.headers["upgrade"] !== undefined ||
            !(fiber.getRef(HttpClient.TracerDisabledWhen)(request)) ||
            !isEmpty(fiber.getRef(undiciOptions))
          ) {
            const timeout = fiber.getRef(CurrentExchangeTimeout)
            return timeout === undefined ? full.execute(request) : timedFull(full, request, timeout)
          }
          const timeout = fiber.getRef(CurrentExchangeTimeout)
          return Effect.callback<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((resume) => {
            const exchange = send(
              dispatcher,
              request,
              body,
              timeout,
              (response) => resume(Effect.succeed(response)),
              (error) => resume(Effect.fail(error))
            )
            return Effect.sync(() => exchange?.abort())
          })
        })),
    Effect.succeed as HttpClient.HttpClient["preprocess"]
  ), { [LeanTypeId]: { dispatcher, undiciOptions } satisfies LeanParts })

/**
 * A request the full client sends, under an {@link ExchangeTimeout}: the
 * exchange and the whole body within the timeout (the body is then kept by
 * the response), as on the lean path.
 */
const timedFull = (
  full: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  timeout: ExchangeTimeout
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
  Effect.timeoutOrElse(
    Effect.tap(full.execute(request), (response) => {
      timeout.response = response
      return response.arrayBuffer
    }),
    {
      duration: timeout.millis,
      orElse: () => {
        timeout.timedOut = true
        return Effect.fail(
          new HttpClientError.HttpClientError({
            reason: new HttpClientError.TransportError({ request, cause: timeoutError, description: timeoutError.message })
          })
        )
      }
    }
  )

/**
 * The lean client as a layer, from the parts of `NodeHttpClient` (one
 * dispatcher for it and for the full client).
 *
 * @internal
 */
export const layerLean = (parts: NodeUndiciParts): Layer.Layer<HttpClient.HttpClient> =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.gen(function*() {
      const dispatcher = yield* Effect.service(parts.Dispatcher)
      const full = yield* HttpClient.HttpClient
      return makeLean(dispatcher, full, parts.UndiciOptions)
    })
  ).pipe(Layer.provide(parts.layerUndiciNoDispatcher), Layer.provide(parts.layerDispatcher)) as Layer.Layer<HttpClient.HttpClient>
