/**
 * One client function: the single path every call takes.
 *
 * 1. the argument is checked and the request built from the contract;
 * 2. in the call's span (with a tracer installed), attempts are made with `Effect.retry` on the call's
 *    `Schedule` (see `./policy.ts`): each attempt with a credential waits for
 *    the transport's `admit` (if any, within the call's budget), reads the credential, sends
 *    the request through the transport's `HttpClient`, runs the `onResponse`
 *    hooks at the response head, and reads and decodes the body (a non-2xx
 *    into its typed error), all within the attempt's timeout; a 401 refreshes
 *    the credential and replays once per call;
 * 3. every attempt is logged at debug level, and the result carries the
 *    status, the request id and the headers.
 *
 * @internal
 */
import { Clock, Duration, Effect, Exit, Redacted, Tracer } from "effect"
import { HttpClient, HttpClientRequest, HttpTraceContext } from "effect/http"
import type { HttpClientResponse } from "effect/http"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { Credentials } from "../Credentials.ts"
import { requestIdOf, type TransportConfig } from "../TransportConfig.ts"
import * as ConnectedVehicleError from "../ConnectedVehicleError.ts"
import { withoutCredentials } from "./http.ts"
import type { Hook } from "./hooks.ts"
import * as Hooks from "./hooks.ts"
import * as SdkLog from "./log.ts"
import * as Timeout from "./timeout.ts"
import { secretsOf } from "./redact.ts"
import type { Policy } from "./policy.ts"
import * as CallPolicy from "./policy.ts"
import type { Given } from "./request.ts"
import type { Admit, CallOptions, Result } from "../Transport.ts"
import type { AnyError, Ctx } from "./responses.ts"
import { checkParams, decodeError, fail, failureOf, mapBuildError, mapDecodeError, mapSendError, statusOf, tagOf } from "./responses.ts"

/**
 * A request builder: the request with its absolute URL, or the effect that
 * encodes it.
 *
 * @internal
 */
export type Builder = (given: Given) => HttpClientRequest.HttpClientRequest | Effect.Effect<HttpClientRequest.HttpClientRequest, unknown>

/**
 * An endpoint's success decoder.
 *
 * @internal
 */
export interface Decoder {
  readonly decode: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<unknown, unknown>
}

/** @internal */
export interface MethodSpec extends Decoder {
  readonly config: TransportConfig["Service"]
  readonly httpClient: HttpClient.HttpClient
  readonly admit: Admit | undefined
  readonly credentials: Credentials["Service"] | undefined
  readonly log: SdkLog.SdkLog
  readonly spanName: string
  readonly method: string
  readonly path: string
  /** The root, without a trailing slash. */
  readonly baseUrl: string
  readonly build: Builder
  readonly onResponse: Hook | undefined
}

/** The state of one call. */
interface Call {
  readonly request: HttpClientRequest.HttpClientRequest
  readonly policy: Policy
  readonly deadline: number
  readonly hooks: Hook | undefined
  refreshed: boolean
  attempts: number
  url: string | undefined
}

/** @internal */
export type Method = (input: unknown, options?: CallOptions) => Effect.Effect<Result<unknown>, AnyError>


/** The request's URL without credentials, once per call (for logs and errors). */
const urlOf = (call: Call): string => call.url ??= withoutCredentials(call.request.url, call.request.urlParams)

/** The outcome of a response: the error of a non-2xx, else the decoded body. */
const handle = (
  spec: MethodSpec,
  response: HttpClientResponse.HttpClientResponse,
  seen: Seen
): Effect.Effect<Result<unknown>, AnyError> => {
  const { config, method } = spec
  const status = response.status
  const requestId = requestIdOf(response.headers, config.requestIdHeaders)
  seen.status = status
  seen.requestId = requestId
  // the URL as the client sent it (a `transformClient` may have replaced it)
  const ctx = (): Ctx => ({
    status,
    method,
    url: withoutCredentials(response.request.url, response.request.urlParams),
    ...(requestId ? { requestId } : {})
  })
  if (status >= 400) return Effect.flatMap(decodeError(response, ctx(), secretsOf(response.request)), Effect.fail)
  // the service never redirects: a redirect is not followed, whatever the client
  if (status >= 300) return Effect.fail(fail(new ConnectedVehicleError.UnexpectedStatus({ ...ctx(), ...locationOf(response) })))
  return Effect.map(
    Effect.mapError(spec.decode(response), (error): AnyError => mapDecodeError(error, ctx())),
    (value): Result<unknown> => ({ value, status, requestId, headers: response.headers })
  )
}

/** The `Timeout` of an attempt cut at `limit` milliseconds, with what it saw of the response head. */
const timeoutOf = (spec: MethodSpec, call: Call, limit: number, seen: Seen): AnyError =>
  fail(
    new ConnectedVehicleError.Timeout({
      method: spec.method,
      url: urlOf(call),
      timeout: Duration.millis(limit),
      ...(seen.status === undefined ? {} : { status: seen.status }),
      ...(seen.requestId ? { requestId: seen.requestId } : {})
    })
  )

/** One exchange, within its timeout (cut to what is left of the call's budget), logged at debug level. */
const attempt = (spec: MethodSpec, call: Call, token: Redacted.Redacted<string> | undefined): Effect.Effect<Result<unknown>, AnyError> =>
  Effect.withFiber((fiber) => {
    const { config, httpClient, log, method, path } = spec
    const clock = fiber.getRef(Clock.Clock)
    const n = ++call.attempts
    const start = clock.currentTimeMillisUnsafe()
    // the first attempt has the whole budget; a later one what is left of it
    // (after a wait for `admit`, what is left of it)
    const left = n === 1 && spec.admit === undefined ? call.policy.maxElapsedMillis : call.deadline - start
    const limit = Math.max(1, Math.min(call.policy.timeoutMillis, left))
    const seen: Seen = { status: undefined, requestId: undefined }
    const exchange = Effect.flatMap(
      Effect.mapError(httpClient.execute(withBearer(call.request, token)), (error) =>
        mapSendError(error, method, path, withoutCredentials(error.request.url, error.request.urlParams))),
      (response) => call.hooks === undefined ? handle(spec, response, seen) : Effect.andThen(call.hooks(response), handle(spec, response, seen))
    )
    const timed = Timeout.timeoutOrElse(exchange, limit, () => Effect.fail(timeoutOf(spec, call, limit, seen)))
    // one debug line per attempt, once it is over (the fiber's log level decides, as for any log line)
    return !SdkLog.enabledIn(fiber, config.logLevel, "Debug") ? timed : Effect.onExit(timed, (exit) =>
      log.log("Debug", "http attempt", {
        method,
        url: SdkLog.redactUrl(urlOf(call)),
        attempt: n,
        ...(seen.status === undefined ? {} : { status: seen.status }),
        durationMillis: clock.currentTimeMillisUnsafe() - start,
        ...(seen.requestId ? { requestId: seen.requestId } : {}),
        ...(Exit.isSuccess(exit) ? {} : { error: failureOf(exit.cause) })
      }))
  })

/**
 * `next` once `admit` let the call's request go (before the credential is
 * read, outside the attempt's timeout), within what is left of the call's
 * budget; `next` itself without `admit`.
 */
const admitted = <A>(spec: MethodSpec, call: Call, next: Effect.Effect<A, AnyError>): Effect.Effect<A, AnyError> => {
  const admit = spec.admit
  return admit === undefined ? next : Effect.withFiber((fiber) => {
    const left = call.deadline - fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()
    const budget = Duration.millis(call.policy.maxElapsedMillis)
    return Effect.andThen(
      Timeout.timeoutOrElse(
        admit(call.request),
        Math.max(1, left),
        () => Effect.fail(fail(new ConnectedVehicleError.Timeout({ method: spec.method, url: urlOf(call), timeout: budget })))
      ),
      next
    )
  })
}

/** An attempt with the call's credential, once admitted; a 401 refreshes it and replays (admitted again), once per call. */
const authenticated = (spec: MethodSpec, call: Call): Effect.Effect<Result<unknown>, AnyError> => {
  const { credentials, log, method } = spec
  return credentials === undefined ? attempt(spec, call, undefined) : admitted(spec, call, Effect.flatMap(credentials.token, (token) =>
    Effect.catch(attempt(spec, call, token), (error): Effect.Effect<Result<unknown>, AnyError> => {
      if (call.refreshed || statusOf(error) !== 401 || tagOf(error) === "Credentials") return Effect.fail(error)
      call.refreshed = true
      return Effect.flatMap(credentials.refresh(token), (refreshed) =>
        refreshed
          ? Effect.andThen(
            log.log("Debug", "replaying after 401 with a refreshed token", { method, url: SdkLog.redactUrl(urlOf(call)) }),
            admitted(spec, call, Effect.flatMap(credentials.token, (next) => attempt(spec, call, next)))
          )
          : Effect.fail(error))
    })))
}

/** The attempts of a call, retried on its schedule. */
const run = (
  spec: MethodSpec,
  clock: Clock.Clock,
  request: HttpClientRequest.HttpClientRequest,
  policy: Policy,
  hooks: Hook | undefined,
  span: Tracer.Span | undefined
): Effect.Effect<Result<unknown>, AnyError> => {
  // called when the call's effect runs (in `withFiber`, or once the request is encoded)
  const { log, method } = spec
  const deadline = clock.currentTimeMillisUnsafe() + policy.maxElapsedMillis
  const call: Call = { request, policy, deadline, hooks, refreshed: false, attempts: 0, url: undefined }
  // the schedule is built once an attempt failed (most calls succeed at
  // once): that failure is handed to `Effect.retry` as its first, so the
  // schedule sees every failure of the call, as if it had run from the start
  const retried = Effect.catch(authenticated(spec, call), (first) => {
    let replay: AnyError | undefined = first
    const idempotent = method === "GET" || method === "HEAD" || method === "OPTIONS"
    return Effect.retry(
      Effect.suspend(() => {
        if (replay === undefined) return authenticated(spec, call)
        const error = replay
        replay = undefined
        return Effect.fail(error)
      }),
      CallPolicy.schedule(policy, idempotent, deadline, (error, n, delayMillis) => {
        span?.attribute("retry.count", n)
        return log.log("Debug", "retrying", { method, url: SdkLog.redactUrl(urlOf(call)), attempt: n, delayMillis, error: tagOf(error) })
      })
    )
  })
  return span === undefined ? retried : Effect.map(retried, (result) => {
    span.attribute("http.response.status_code", result.status)
    if (result.requestId !== undefined) span.attribute("request.id", result.requestId)
    return result
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
    const start = (clock: Clock.Clock, span: Tracer.Span | undefined, propagate: boolean) => {
      const built = build(given)
      const traced = (request: HttpClientRequest.HttpClientRequest) =>
        run(spec, clock, propagate && span !== undefined ? HttpClientRequest.setHeaders(request, HttpTraceContext.toHeaders(span)) : request, policy, hooks, span)
      return Effect.isEffect(built)
        ? Effect.flatMap(Effect.mapError(built, (error): AnyError => mapBuildError(error, method, path)), traced)
        : traced(built)
    }
    return Effect.withFiber((fiber) => {
      // Effect's default tracer has no backend: its spans cannot be observed,
      // so none is made and no trace context is sent (as Effect's own HTTP
      // server does); the request goes the same way either way
      const clock = fiber.getRef(Clock.Clock)
      if (fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer) return start(clock, undefined, false)
      // without the HttpClient's span per attempt (`httpSpans`), the call's
      // span is the trace context sent to the service
      const propagate = !config.httpSpans && fiber.getRef(HttpClient.TracerPropagationEnabled) &&
        !fiber.getRef(Tracer.DisablePropagation)
      return Effect.useSpan(spec.spanName, spanOptions, (span) =>
        Effect.withParentSpan(start(clock, span, propagate), span, { captureStackTrace: false }))
    })
  }
}

/** What an attempt saw of the response head, for a failure that comes after it. */
interface Seen {
  status: number | undefined
  requestId: string | undefined
}

/** The request with the call's credential, unless it carries an `authorization` of its own (the token endpoint's). */
const withBearer = (
  request: HttpClientRequest.HttpClientRequest,
  token: Redacted.Redacted<string> | undefined
): HttpClientRequest.HttpClientRequest =>
  token !== undefined && request.headers["authorization"] === undefined
    ? HttpClientRequest.setHeader(request, "authorization", `Bearer ${Redacted.value(token)}`)
    : request

const locationOf = (response: HttpClientResponse.HttpClientResponse): { readonly location?: string } => {
  const location = response.headers["location"]
  return location === undefined || location === "" ? {} : { location: withoutCredentials(location) }
}
