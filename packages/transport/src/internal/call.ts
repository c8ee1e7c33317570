/**
 * One client function: the single path every call takes.
 *
 * 1. the argument is checked and the request built from the contract;
 * 2. in the call's span (with a tracer installed), the request goes through
 *    one `HttpClient` composed of middleware over the transport's client,
 *    outermost first:
 *    - `retried`: the attempts, retried with `Effect.retry` on the call's
 *      `Schedule` (see `./policy.ts`; `Retry-After`, `maxElapsed`);
 *    - `authenticated` (`./authenticated.ts`): each attempt with a credential reads
 *      the credential, then waits for the transport's `admit` (if any; both
 *      within what is left of the call's budget) and sends it at once (read
 *      again if that comes at once); a 401 refreshes it and replays once
 *      per call;
 *    - `timed`: each attempt within its timeout (cut to what is left of the
 *      call's budget), logged at debug level;
 *    - `exchange`: the send, the `onResponse` hooks at the response head, a
 *      non-2xx into its typed error, a 2xx's body read;
 * 3. the success is decoded from that body (a 2xx the endpoint does not
 *    declare is an `UnexpectedStatus` at its head, its body not read); the
 *    result carries the status, the request id and the headers.
 *
 * @internal
 */
import { Clock, Context, Duration, Effect, Exit, Fiber, Option, Tracer } from "effect"
import { HttpBody, HttpClient, HttpClientRequest, HttpTraceContext } from "effect/http"
import type { HttpClientResponse } from "effect/http"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import * as ConnectedVehicleError from "../ConnectedVehicleError.ts"
import * as NotSent from "./notSent.ts"
import { attemptContext, propagates } from "./untraced.ts"
import { withoutCredentials } from "./url.ts"
import type { Hook } from "./hooks.ts"
import * as Hooks from "./hooks.ts"
import * as SdkLog from "./log.ts"
import * as Timeout from "./timeout.ts"
import { secretsOf } from "./redact.ts"
import type { Policy } from "./policy.ts"
import * as CallPolicy from "./policy.ts"
import type { Given } from "./request.ts"
import type { Result } from "../Transport.ts"
import type { AnyError, Ctx } from "./responses.ts"

export type { Builder, Decoder, Method, MethodSpec } from "./callState.ts"
import { authenticated } from "./authenticated.ts"
import { type Call, type Client, type Method, type MethodSpec, urlOf } from "./callState.ts"
import {
  checkParams,
  decodeError,
  fail,
  failureOf,
  mapBodyReadError,
  mapBuildError,
  mapDecodeError,
  mapSendError,
  mayHaveReached,
  mayNotBeUtf8,
  notUtf8Error,
  sentByNone,
  strictText,
  locationOf,
  requestIdIn,
  retryAfterOf,
  tagOf
} from "./responses.ts"


/**
 * The client of an attempt's exchange: a send failure becomes its typed
 * error (a failure that carries a non-2xx response, a `transformClient`'s
 * `StatusCodeError`, is that response); at the response head the
 * `onResponse` hooks run; a non-2xx becomes its typed error (its body read),
 * and a 2xx's body is read, so that a body cut short fails the attempt (and
 * is retried) rather than the decode.
 */
const exchange = (spec: MethodSpec, call: Call) => (client: HttpClient.HttpClient): Client =>
  // the whole of `client.execute` (its own request steps included) inside, its failures typed
  HttpClient.makeWith<AnyError, never, AnyError, never>(
    (request) =>
      Effect.flatMapEager(request, (request) => {
        call.sending = request
        const received = (response: HttpClientResponse.HttpClientResponse) => {
          call.response = response
          return call.hooks === undefined ? respond(spec, call, response) : afterHooks(call.hooks(response), respond(spec, call, response))
        }
        return Effect.matchEffect(client.execute(request), {
          onFailure: (error) => {
            // a response a `transformClient` failed with (`HttpClient.filterStatusOk`'s `StatusCodeError`) is that
            // response when its status is not 2xx: its hooks run, its status decides (a 404 a `NotFound`, retried
            // only if transient); a 2xx it refused is its refusal ({@link refused2xx})
            if (error.reason._tag === "StatusCodeError") {
              const response = error.reason.response
              if (response.status < 200 || response.status >= 300) return received(response)
              call.response = response
              return call.hooks === undefined ? refused2xx(spec, call, response) : afterHooks(call.hooks(response), refused2xx(spec, call, response))
            }
            const url = withoutCredentials(error.request.url, error.request.urlParams)
            const failed = Effect.fail(mapSendError(error, spec.method, spec.path, url))
            // a response handed on in the client's failure (a `transformClient`'s
            // `filterStatusOk`, say) is not read by anyone: released
            const response = "response" in error.reason ? error.reason.response : undefined
            return response === undefined ? failed : Effect.andThen(release(response), failed)
          },
          onSuccess: received
        })
      }),
    (request) => Effect.succeed(request)
  )

/**
 * A 2xx the call cannot take, whose body is not read: one a
 * `transformClient` refused (`HttpClient.filterStatus`; its hooks ran), or
 * one the contract does not declare for the endpoint (a 202 where only a 200
 * is): an `UnexpectedStatus` with that status (not retried), its body
 * released.
 */
const refused2xx = (spec: MethodSpec, call: Call, response: HttpClientResponse.HttpClientResponse): Effect.Effect<never, AnyError> => {
  const requestId = requestIdIn(response, spec.config.requestIdHeaders)
  call.status = response.status
  call.mayHaveSent = true
  call.requestId = requestId
  return Effect.andThen(release(response), Effect.fail(fail(new ConnectedVehicleError.UnexpectedStatus(contextOf(spec, response, requestId)))))
}

/** `next` after what the hooks returned (none to wait for: `Effect.void`); an attempt interrupted meanwhile releases the body (`timed`). */
const afterHooks = <A, E>(hooked: Effect.Effect<void>, next: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  hooked === Effect.void ? next : Effect.andThen(hooked, next)

/** Releases a response whose body will not be read: a read started and interrupted at once ends the exchange on any client. */
const release = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> =>
  Effect.flatMap(Effect.forkChild(response.text, { startImmediately: true }), Fiber.interrupt)

/** `client` with each exchange wrapped by `f` (`HttpClient.transform` without its per-request `flatMap`). */
const around = (client: Client, f: (effect: Effect.Effect<HttpClientResponse.HttpClientResponse, AnyError>) => Effect.Effect<HttpClientResponse.HttpClientResponse, AnyError>): Client =>
  HttpClient.makeWith((request) => f(client.postprocess(request)), client.preprocess)

/** The context of a response's error: the URL as the client sent it (a `transformClient` may have replaced it). */
const contextOf = (spec: MethodSpec, response: HttpClientResponse.HttpClientResponse, requestId: string | undefined): Ctx => ({
  status: response.status,
  method: spec.method,
  url: withoutCredentials(response.request.url, response.request.urlParams),
  ...(requestId ? { requestId } : {})
})

/** A response: the error of a non-2xx, else the response once its body is read. */
const respond = (spec: MethodSpec, call: Call, response: HttpClientResponse.HttpClientResponse): Effect.Effect<HttpClientResponse.HttpClientResponse, AnyError> => {
  const status = response.status
  const requestId = requestIdIn(response, spec.config.requestIdHeaders)
  call.status = status
  call.mayHaveSent = true
  call.requestId = requestId
  if (status >= 400) {
    // the `Retry-After` of any error status, read from the head (kept by a `Timeout` of a stalled body too)
    return Effect.flatMap(retryAfterOf(response), (retryAfter) => {
      call.retryAfter = retryAfter
      const ctx = contextOf(spec, response, requestId)
      return Effect.flatMap(decodeError(response, retryAfter === undefined ? ctx : { ...ctx, retryAfter }, { secrets: secretsOf(response.request), authorizationServer: spec.authorizationServer }), Effect.fail)
    })
  }
  // a 2xx the contract does not declare for the endpoint: known at the head, its body not read
  if (status < 300 && !spec.declared.has(status)) return refused2xx(spec, call, response)
  // the service never redirects: a redirect is not followed, whatever the client
  if (status >= 300) {
    const refused = fail(new ConnectedVehicleError.UnexpectedStatus({ ...contextOf(spec, response, requestId), ...locationOf(response) }))
    // its body is not read: released, whatever the client
    return Effect.andThen(release(response), Effect.fail(refused))
  }
  // the body's text, kept by the response (a decoder that reads it again gets the same), for the decode after
  // the attempts; strict UTF-8 on every client: a text with U+FFFD (unless the client marked it strict), or a
  // text the client failed to decode, is decided by its bytes (see `bodyText`)
  const text = response.text
  // a text already read (an effect that is already its `Exit`, as any client may return): taken without a step
  if (Exit.isExit(text)) {
    const read = text as Exit.Exit<string, unknown>
    if (Exit.isSuccess(read) && !mayNotBeUtf8(response, read.value)) {
      call.body = read.value
      return Exit.succeed(response)
    }
  }
  return Effect.matchEffect(text, {
    onFailure: (error) => error.reason._tag === "DecodeError" ? fromBytes(call, response, requestId, spec) : Effect.fail(mapBodyReadError(error, contextOf(spec, response, requestId))),
    onSuccess: (text) => {
      if (mayNotBeUtf8(response, text)) return fromBytes(call, response, requestId, spec)
      call.body = text
      return Effect.succeed(response)
    }
  })
}

/** A 2xx body read from its bytes ({@link respond}): an `InvalidResponse` when they are not UTF-8. */
const fromBytes = (call: Call, response: HttpClientResponse.HttpClientResponse, requestId: string | undefined, spec: MethodSpec) =>
  Effect.matchEffect(strictText(response), {
    onFailure: (error) => Effect.fail(mapBodyReadError(error, contextOf(spec, response, requestId))),
    onSuccess: (text) => {
      if (text === undefined) return Effect.fail(notUtf8Error(response, contextOf(spec, response, requestId)))
      call.body = text
      return Effect.succeed(response)
    }
  })

/**
 * The current attempt's response released, if its head came: an attempt
 * interrupted in an `onResponse` hook, or before its body was read, leaves a
 * body nothing else would read (released once read, it is a no-op).
 */
const releaseResponse = (call: Call): Effect.Effect<void> => call.response === undefined ? Effect.void : release(call.response)

/**
 * The `Timeout` of an attempt, `limit` the milliseconds that ran out, with
 * what it saw of the response head; `sent: false` when the client was
 * interrupted before it wrote any of the request (it marked it so with the
 * public `RequestNotSent.markNotSent`, which any client may call; without a
 * mark, the attempt may have sent it).
 */
const timeoutOf = (spec: MethodSpec, call: Call, limit: number): AnyError => {
  const unsent = call.status === undefined && call.sending !== undefined && NotSent.isMarked(call.sending)
  if (!unsent) call.mayHaveSent = true
  return fail(
    new ConnectedVehicleError.Timeout({
      method: spec.method,
      url: urlOf(call),
      timeout: Duration.millis(limit),
      ...(call.status === undefined ? {} : { status: call.status }),
      ...(call.requestId ? { requestId: call.requestId } : {}),
      ...(call.retryAfter === undefined ? {} : { retryAfter: call.retryAfter }),
      ...(unsent ? { sent: false } : {})
    })
  )
}

/** The client of an attempt within its timeout (cut to what is left of the call's budget), logged at debug level. */
const timed = (spec: MethodSpec, call: Call) => (client: Client): Client =>
  around(client, (effect) =>
    Effect.withFiber((fiber) => {
      const { config, log, method } = spec
      const clock = fiber.getRef(Clock.Clock)
      const n = ++call.attempts
      const start = clock.currentTimeMillisUnsafe()
      call.status = undefined
      call.requestId = undefined
      call.retryAfter = undefined
      call.response = undefined
      // a mark of an earlier attempt's exchange is not this one's (a request without a credential of the
      // call's is the same object on every attempt: the attempts' effect is built once, `sending` set then)
      if (call.sending !== undefined) NotSent.clear(call.sending)
      // the first attempt has the whole budget; a later one (or one after a
      // wait for `admit` or the credential) what is left of it
      const left = n === 1 && spec.admit === undefined && spec.credentials === undefined ? call.policy.maxElapsedMillis : call.deadline - start
      const limit = Math.max(1, Math.min(call.policy.timeoutMillis, left))
      // what ran out: the attempt's timeout, or the call's budget (`maxElapsed`) it was cut to
      const spent = call.policy.timeoutMillis <= left ? call.policy.timeoutMillis : call.policy.maxElapsedMillis
      // without `httpSpans`, the transport's requests in the attempt are not traced (`./untraced.ts`)
      const context = config.httpSpans ? fiber.context : attemptContext(fiber.context)
      const attempt = Timeout.timeoutIn(
        fiber,
        clock,
        effect,
        limit,
        () => Effect.andThen(releaseResponse(call), Effect.fail(timeoutOf(spec, call, spent))),
        context,
        () => releaseResponse(call)
      )
      // one debug line per attempt, once it is over (the fiber's log level decides, as for any log line)
      return !SdkLog.enabledIn(fiber, config.logLevel, "Debug") ? attempt : Effect.onExit(attempt, (exit) =>
        log.log("Debug", "http attempt", {
          method,
          url: urlOf(call),
          attempt: n,
          ...(call.status === undefined ? {} : { status: call.status }),
          durationMillis: clock.currentTimeMillisUnsafe() - start,
          ...(call.requestId ? { requestId: call.requestId } : {}),
          ...(Exit.isSuccess(exit) ? {} : { error: failureOf(exit.cause) })
        }))
    }))

/**
 * The client of a call's attempts, retried on its schedule. The schedule is
 * built once an attempt failed (most calls succeed at once): that failure is
 * handed to `Effect.retry` as its first, so the schedule sees every failure
 * of the call, as if it had run from the start.
 */
const retried = (spec: MethodSpec, call: Call, span: Tracer.Span | undefined) => (client: Client): Client => {
  const { log, method } = spec
  const idempotent = method === "GET" || method === "HEAD" || method === "OPTIONS"
  return around(client, (effect) =>
    Effect.catch(effect, (first) => {
      let replay: AnyError | undefined = first
      // the call's failure: `sent: false` only when no attempt may have reached the service (failures only: no step on a success)
      return Effect.mapError(Effect.retry(
        Effect.suspend(() => {
          if (replay === undefined) return effect
          const error = replay
          replay = undefined
          return Effect.fail(error)
        }),
        CallPolicy.schedule(call.policy, idempotent, call.deadline, (error, n, delayMillis) => {
          call.mayHaveSent ||= mayHaveReached(error)
          span?.attribute("retry.count", n)
          return log.log("Debug", "retrying", { method, url: urlOf(call), attempt: n, delayMillis, error: tagOf(error) })
        })
      ), (error) => sentByNone(error, call.mayHaveSent))
    }))
}

/**
 * A call: its request through one `HttpClient` composed of the middleware
 * above (retries around the credential around the attempt's timeout around
 * the exchange), then the success decoded from the body the exchange read.
 */
const run = (
  spec: MethodSpec,
  clock: Clock.Clock,
  request: HttpClientRequest.HttpClientRequest,
  policy: Policy,
  hooks: Hook | undefined,
  span: Tracer.Span | undefined
): Effect.Effect<Result<unknown>, AnyError> => {
  // called when the call's effect runs (in `withFiber`, or once the request is encoded)
  const deadline = clock.currentTimeMillisUnsafe() + policy.maxElapsedMillis
  const call: Call = {
    request,
    policy,
    deadline,
    hooks,
    refreshed: false,
    rejected: undefined,
    attempts: 0,
    url: undefined,
    status: undefined,
    requestId: undefined,
    retryAfter: undefined,
    body: undefined,
    response: undefined,
    sending: undefined,
    mayHaveSent: false
  }
  const client = retried(spec, call, span)(authenticated(spec, call)(timed(spec, call)(exchange(spec, call)(spec.httpClient))))
  // the request a result shows: without a body or an `authorization` header (a token request's
  // form carries a code or a refresh token, its header the Basic credential)
  const shown = request.body._tag === "Empty" && request.headers["authorization"] === undefined
    ? request
    : HttpClientRequest.removeHeader(HttpClientRequest.setBody(request, HttpBody.empty), "authorization")
  return Effect.flatMap(client.execute(request), (response) => {
    const status = response.status
    const requestId = call.requestId
    if (span !== undefined) {
      span.attribute("http.response.status_code", status)
      if (requestId !== undefined) span.attribute("request.id", requestId)
    }
    const decoded = spec.decode(response, call.body ?? "")
    // the decoder's `Exit` (a JSON body) is read at once; any other decode is run
    if (Exit.isExit(decoded) && Exit.isSuccess(decoded)) {
      return Effect.succeed<Result<unknown>>({ value: decoded.value, request: shown, status, requestId, headers: response.headers })
    }
    return Effect.matchEffect(decoded, {
      onFailure: (error) => Effect.fail(mapDecodeError(error, contextOf(spec, response, requestId))),
      onSuccess: (value) => Effect.succeed<Result<unknown>>({ value, request: shown, status, requestId, headers: response.headers })
    })
  })
}

/** @internal */
export const make = (spec: MethodSpec): Method => {
  const { build, config, method, path } = spec
  const templateUrl = spec.baseUrl + path
  const spanOptions = { kind: "client", attributes: { "http.request.method": method, "url.template": templateUrl } } as const
  const clientHook = spec.onResponse === undefined ? undefined : Hooks.ignoring(spec.onResponse)
  // the configured policies in milliseconds, once per client
  const base = CallPolicy.fromConfig(config.timeout, config.retry, config.rateLimit)

  return (input, options) => {
    const given = (input ?? {}) as Given
    const invalid = checkParams(given)
    if (invalid !== undefined) return Effect.fail(invalid)
    const policy = CallPolicy.resolve(options, config, base)
    if (policy instanceof InvalidArgument) return Effect.fail(policy)
    const hooks = options?.onResponse === undefined ? clientHook : Hooks.ignoring(Hooks.andThen(spec.onResponse, options.onResponse)!)
    // `context`: the span whose trace context is sent, if any
    const start = (clock: Clock.Clock, span: Tracer.Span | undefined, context: Tracer.Span | undefined) => {
      const built = build(given)
      const traced = (request: HttpClientRequest.HttpClientRequest) =>
        run(spec, clock, context !== undefined ? HttpClientRequest.setHeaders(request, HttpTraceContext.toHeaders(context)) : request, policy, hooks, span)
      return Effect.isEffect(built)
        ? Effect.flatMap(Effect.mapError(built, (error): AnyError => mapBuildError(error, method, path)), traced)
        : traced(built)
    }
    return Effect.withFiber((fiber) => {
      const clock = fiber.getRef(Clock.Clock)
      // without the HttpClient's span per attempt (`httpSpans`), the call
      // sends the trace context of its span
      const propagate = !config.httpSpans && fiber.getRef(HttpClient.TracerPropagationEnabled) &&
        !fiber.getRef(Tracer.DisablePropagation)
      // Effect's default tracer has no backend: its spans cannot be observed,
      // so the call makes none (as Effect's own HTTP server does) and sends
      // the trace context of the caller's span, if there is one; the request
      // goes the same way either way
      if (fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) {
        const parent = propagate ? Context.getOption(fiber.context, Tracer.ParentSpan) : Option.none()
        return start(clock, undefined, Option.isSome(parent) && propagates(parent.value) ? parent.value : undefined)
      }
      return Effect.useSpan(spec.spanName, spanOptions, (span) =>
        Effect.withParentSpan(start(clock, span, propagate && propagates(span) ? span : undefined), span, { captureStackTrace: false }))
    })
  }
}
