/**
 * An `HttpClient` on undici's `Dispatcher` (Node): one `dispatch` per
 * request with a handler, the body collected as it arrives (an API's JSON
 * bodies: nothing is streamed) and read once, up to a size limit enforced
 * while it arrives, with a per-origin connection limit. Built on Effect's
 * public API only: the client from `HttpClient.makeWith` and
 * `HttpClient.make`, its response an implementation of Effect's public
 * `HttpClientResponse` interface (a class of its own carrying the exported
 * `TypeId`s; no private internals). Beside `FetchHttpClient` and
 * `NodeHttpClient.layerUndici`, the transport treats it like any other
 * `HttpClient`. Where tracing is on for a request (neither
 * `HttpClient.TracerDisabledWhen` nor `Tracer.DisablePropagation` says
 * otherwise), the exchange runs inside `HttpClient.make`, which gives it
 * Effect's client span and trace headers; where it is off, the same exchange
 * runs without that wrapper (its `AbortController` and response tracking:
 * the exchange is aborted by interruption itself, and its body is read
 * whole), at about 14 µs less per request.
 *
 * A request that failed before any of it was written (its connection never
 * made, its TLS handshake failed) fails with a `TransportError` whose cause
 * is a `RequestNotSent` (`@connected-vehicle/transport/RequestNotSent`); one
 * after undici started it whose error names a connection never made (a
 * dispatcher that retried on a new connection) has a `RequestMaybeSent`.
 *
 * It sends requests whose body is empty, bytes or a string (every request of
 * the SDK); a streamed or multipart body is an `EncodeError`. It follows no
 * redirect and does not upgrade connections.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option, Result, Tracer } from "effect"
import type { Fiber } from "effect"
import { HttpClient, HttpClientError, Url } from "effect/http"
import type { HttpClientRequest, HttpClientResponse } from "effect/http"
// first: on a Node.js too old for undici, a clear error instead of undici's own
import "./internal/nodeVersion.ts"
import { Agent, errors } from "undici"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { Dispatcher } from "undici"
import { Exchange, ExchangeResponse } from "./internal/exchange.ts"
import { isNotSent, markNotSent, RequestMaybeSent, RequestNotSent } from "./RequestNotSent.ts"
import { unknownOption } from "./Setting.ts"
import { markStrictUtf8 } from "./StrictUtf8.ts"
import { type Target, targetOf } from "./internal/target.ts"

/**
 * Options of {@link make} and {@link layer}.
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/transport/UndiciHttpClient"
 *
 * const options: Options = { maxResponseBytes: 4 * 1024 * 1024, connections: 32 }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * The largest response body accepted, in bytes, a safe integer of at least
   * 1, or `Infinity` for no limit (default {@link defaultMaxResponseBytes}); a larger one is cut off as it
   * arrives, its connection released, and reading it fails with a
   * `DecodeError` naming the limit, whose cause is a `ResponseTooLarge`
   * (`@connected-vehicle/transport/ResponseTooLarge`). {@link MaxResponseBytes} overrides it
   * for the effects it is provided to.
   */
  readonly maxResponseBytes?: number | undefined
  /**
   * Connections per origin of the dispatcher {@link layer} creates, a safe
   * integer of at least 1 (default {@link defaultConnections}); more
   * concurrent requests wait for one. {@link make} checks it by the same
   * rule, but the dispatcher it is given keeps its own limit.
   */
  readonly connections?: number | undefined
}

/**
 * The default response size limit: 16 MiB, far above the largest page of
 * the service (100 items).
 *
 * @example
 * ```ts
 * import { defaultMaxResponseBytes } from "@connected-vehicle/transport/UndiciHttpClient"
 *
 * const limitInMiB = defaultMaxResponseBytes / 1024 / 1024 // 16
 * ```
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxResponseBytes = 16 * 1024 * 1024

/**
 * The default connection limit per origin of {@link layer}: 64.
 *
 * @example
 * ```ts
 * import { defaultConnections } from "@connected-vehicle/transport/UndiciHttpClient"
 *
 * const perOrigin = defaultConnections // 64
 * ```
 * @since 0.1.0
 * @category constants
 */
export const defaultConnections = 64

/**
 * The response size limit of the requests sent in an effect, overriding the
 * client's `maxResponseBytes` (e.g. for one call): a safe integer of at
 * least 1 or `Infinity` (any other value fails each request, before sending it, with an
 * `EncodeError` whose cause is an `InvalidArgument` naming
 * `MaxResponseBytes`: the transport's `InvalidRequest`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpClient } from "effect/http"
 * import { MaxResponseBytes } from "@connected-vehicle/transport/UndiciHttpClient"
 *
 * const small = HttpClient.get("http://127.0.0.1:4010/health").pipe(Effect.provideService(MaxResponseBytes, 1024))
 * ```
 * @since 0.1.0
 * @category references
 */
export const MaxResponseBytes = Context.Reference<number | undefined>(
  "@connected-vehicle/transport/UndiciHttpClient/MaxResponseBytes",
  { defaultValue: () => undefined }
)

/**
 * The client on a dispatcher (an undici `Agent`, `Pool`, `Client`, or one
 * composed with interceptors that neither retry nor follow redirects, such as
 * `interceptors.dns()`). Do not give it a dispatcher that retries
 * (`interceptors.retry()`, a `RetryAgent`): the transport retries, and
 * undici's retries under its loop retry a refused connection until the
 * attempt's timeout (a `Timeout` instead of a `Connection` with
 * `sent: false`) and a 429 or 5xx before the transport sees it (past its
 * retry count, `Retry-After` and the call's budget). Nor one that follows
 * redirects (`interceptors.redirect()`): this client follows none, so that a
 * 3xx never takes the credentials elsewhere. An invalid option (see {@link Options})
 * throws an `InvalidArgument` naming it, `connections` included, although
 * the dispatcher keeps its own connection limit (set it on the dispatcher);
 * a key that is not an option (`maxResponseSize`) one naming the key; options
 * that are not an object (nor `undefined`) one naming `options`; a
 * `dispatcher` that is not an object with a `dispatch` function one naming
 * `dispatcher`.
 *
 * @example
 * ```ts
 * import { Agent } from "undici"
 * import { make } from "@connected-vehicle/transport/UndiciHttpClient"
 *
 * const client = make(new Agent({ connections: 16 }), { maxResponseBytes: 1024 * 1024 })
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make = (dispatcher: Dispatcher, given?: Options): HttpClient.HttpClient => {
  checkDispatcher(dispatcher)
  const options = optionsOf(given)
  const configured = count("maxResponseBytes", options?.maxResponseBytes, defaultMaxResponseBytes, true)
  // the dispatcher's own limit applies: checked only, as `layer` checks it
  count("connections", options?.connections, defaultConnections)
  const send = sendWith(dispatcher, configured)
  // with tracing: Effect's own client span around the same exchange (the response it wraps it in reads the
  // exchange's, strict UTF-8 too: marked so)
  const traced = (given: HttpClientRequest.HttpClientRequest) =>
    Effect.map(HttpClient.make((request, url, _signal, fiber) => send(request, fromUrl(url), fiber, given)).execute(given), (response) => {
      markStrictUtf8(response)
      return response
    })
  return HttpClient.makeWith(
    (effect) =>
      Effect.flatMapEager(effect, (request) =>
        Effect.withFiber((fiber) => {
          if (!fiber.getRef(Tracer.DisablePropagation) && !fiber.getRef(HttpClient.TracerDisabledWhen)(request)) {
            return traced(request)
          }
          // the URL parsed only when its string does not already say where it goes
          const target = targetOf(request.url, request.urlParams, request.hash)
          if (target !== undefined) return send(request, target, fiber)
          const url = Url.make(request.url, request.urlParams, Option.getOrUndefined(request.hash))
          return Result.isFailure(url)
            ? Effect.fail(new HttpClientError.HttpClientError({ reason: new HttpClientError.InvalidUrlError({ request, cause: url.failure }) }))
            : send(request, fromUrl(url.success), fiber)
        })),
    Effect.succeed as HttpClient.HttpClient.Preprocess<never, never>
  )
}

/**
 * The client on a dispatcher of its own (an undici `Agent` with
 * `connections` per origin), closed with the layer. Without options it is
 * the same layer at every call, so that the layers built together (the
 * SDK's convenience layers side by side, say) share one dispatcher. An
 * invalid option (see {@link Options}) or a key that is not an option
 * (`maxResponseSize`) throws an `InvalidArgument` naming it, and options that
 * are not an object (nor `undefined`) one naming `options`.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 * import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
 * import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
 *
 * const TransportLive = Transport.layer.pipe(
 *   Layer.provide([TransportConfig.layerConfig, UndiciHttpClient.layer({ connections: 16 })])
 * )
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (given?: Options): Layer.Layer<HttpClient.HttpClient> => {
  const options = optionsOf(given)
  if (options === undefined) return defaultLayer
  count("maxResponseBytes", options.maxResponseBytes, defaultMaxResponseBytes, true)
  return layerWith(options, count("connections", options.connections, defaultConnections))
}

const layerWith = (options: Options | undefined, connections: number): Layer.Layer<HttpClient.HttpClient> =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => new Agent({ connections })),
        (agent) => Effect.promise(() => agent.destroy())
      ),
      (agent) => make(agent, options)
    )
  )

const defaultLayer = layerWith(undefined, defaultConnections)

/**
 * The request's exchange on `dispatcher`, its size limit the fiber's
 * {@link MaxResponseBytes} or `configured`; `given`: the request the client
 * was given, when Effect's client span sends another (with its trace context).
 */
const sendWith = (dispatcher: Dispatcher, configured: number) =>
(
  request: HttpClientRequest.HttpClientRequest,
  target: Target,
  fiber: Fiber.Fiber<unknown, unknown>,
  given: HttpClientRequest.HttpClientRequest = request
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
  const body = bodyOf(request)
  if (body === undefined) {
    return Effect.fail(
      new HttpClientError.HttpClientError({
        reason: new HttpClientError.EncodeError({ request, description: `a ${request.body._tag} body is not supported by this client` })
      })
    )
  }
  const limit = limitOf(fiber.getRef(MaxResponseBytes), configured)
  if (limit instanceof InvalidArgument) {
    return Effect.fail(new HttpClientError.HttpClientError({ reason: new HttpClientError.EncodeError({ request, description: limit.message, cause: limit }) }))
  }
  return exchangeOn(dispatcher, request, target, body, limit, given)
}

/** One `dispatch` of the request, answered when its head arrives; interrupted, the exchange is aborted. */
const exchangeOn = (
  dispatcher: Dispatcher,
  request: HttpClientRequest.HttpClientRequest,
  target: Target,
  body: string | Uint8Array | null,
  limit: number,
  given: HttpClientRequest.HttpClientRequest
) =>
  Effect.callback<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((resume) => {
    const exchange: Exchange = new Exchange(
      limit,
      (status, headers) => resume(Effect.succeed(new ExchangeResponse(request, target.href, status, headers, exchange))),
      (cause) => resume(Effect.fail(failureOf(request, exchange, cause))),
      given
    )
    try {
      dispatcher.dispatch({ origin: target.origin, path: target.path, method: request.method as Dispatcher.HttpMethod, headers: request.headers, body }, exchange)
    } catch (cause) {
      exchange.onResponseError(undefined as never, cause instanceof Error ? cause : new Error(String(cause)))
    }
    // interrupted: the exchange is aborted (its signal is not needed); before undici's
    // `onRequestStart`, nothing of the request was written
    return Effect.sync(() => {
      if (exchange.controller === undefined) markNotSent(given)
      exchange.abort()
    })
  })

/** The error of an exchange that failed before its head. */
const failureOf = (request: HttpClientRequest.HttpClientRequest, exchange: Exchange, cause: Error): HttpClientError.HttpClientError =>
  // a request undici refuses to build (a header value it cannot send): nothing sent, and
  // sending it again cannot help (an `InvalidRequest` to the transport, not a connection failure)
  exchange.controller === undefined && isInvalidArgument(cause)
    ? new HttpClientError.HttpClientError({ reason: new HttpClientError.EncodeError({ request, description: cause.message, cause }) })
    : new HttpClientError.HttpClientError({
      reason: new HttpClientError.TransportError({
        request,
        // before undici's `onRequestStart` (the request on a connected socket), nothing was written;
        // after it, the request may have been, whatever the error (a retry interceptor's failed reconnect)
        cause: exchange.controller === undefined ? new RequestNotSent(cause) : isNotSent(cause) ? new RequestMaybeSent(cause) : cause,
        description: cause.message
      })
    })

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 1

// what was given, as a message shows it: a number as it is, a string quoted (cut short), else its kind
const shown = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)
  if (typeof value === "number" || typeof value === "boolean" || value === null) return String(value)
  if (typeof value === "bigint") return `${value}n (a bigint)`
  return Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`
}

// the `InvalidArgument` of a count that is not a safe integer of at least 1 (or `Infinity`, where allowed)
const notACount = (field: string, value: unknown, infinite: boolean): InvalidArgument =>
  new InvalidArgument({
    field,
    message: `${field}: Expected a safe integer from 1 to ${Number.MAX_SAFE_INTEGER} (Number.MAX_SAFE_INTEGER)${
      infinite ? " or Infinity (no limit)" : ""
    }, got ${shown(value)}`
  })

// the fields of `Options` (a missing one is a type error)
const optionKeys = Object.keys({ maxResponseBytes: 1, connections: 1 } satisfies Record<keyof Options, 1>)

/**
 * The options as given from JavaScript: `undefined` or an object (not an
 * array) whose keys are all options, else an `InvalidArgument` naming
 * `options` (or the unknown key) is thrown.
 */
const optionsOf = (given: unknown): Options | undefined => {
  if (given === undefined) return undefined
  if (typeof given === "object" && given !== null && !Array.isArray(given)) {
    const unknown = unknownOption(given, optionKeys)
    if (unknown !== undefined) throw unknown
    return given as Options
  }
  throw new InvalidArgument({
    field: "options",
    message: `options: Expected an object ({ maxResponseBytes?, connections? }) or undefined, got ${shown(given)}`
  })
}

/** A dispatcher as given from JavaScript: an object with a `dispatch` function, else an `InvalidArgument` naming `dispatcher` is thrown. */
const checkDispatcher = (dispatcher: unknown): void => {
  if (typeof dispatcher === "object" && dispatcher !== null && typeof (dispatcher as Dispatcher).dispatch === "function") return
  throw new InvalidArgument({
    field: "dispatcher",
    message: `dispatcher: Expected an undici Dispatcher (an object with a dispatch function), got ${shown(dispatcher)}`
  })
}

/** An option of {@link Options}: `fallback` when it is `undefined`, else a safe integer of at least 1 (an `InvalidArgument` naming `field` is thrown). */
const count = (field: string, value: number | undefined, fallback: number, infinite = false): number => {
  if (value === undefined) return fallback
  if (!(isCount(value) || (infinite && value === Infinity))) throw notACount(field, value, infinite)
  return value
}

/** The limit of a request: {@link MaxResponseBytes} when it is set (a safe integer of at least 1, else an `InvalidArgument` naming it), else `configured`. */
const limitOf = (given: number | undefined, configured: number): number | InvalidArgument =>
  given === undefined ? configured : isCount(given) || given === Infinity ? given : notACount("MaxResponseBytes", given, true)

// undici's refusal of a request's options (its documented error code: a dispatcher of another copy of undici too)
const isInvalidArgument = (cause: Error): boolean =>
  cause instanceof errors.InvalidArgumentError || (cause as { readonly code?: unknown }).code === "UND_ERR_INVALID_ARG"

const fromUrl = (url: URL): Target => ({ href: url.href, origin: url.origin, path: url.pathname + url.search })

/** The request's body as undici takes it, or `undefined` when this client cannot send it. */
const bodyOf = (request: HttpClientRequest.HttpClientRequest): string | Uint8Array | null | undefined => {
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
