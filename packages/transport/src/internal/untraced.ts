/**
 * The transport's requests without the `HttpClient`'s span per attempt
 * (unless `httpSpans`), set once per attempt rather than once per request.
 *
 * `HttpClient.TracerDisabledWhen` is a predicate of the request: an attempt's
 * fiber is forked with one that is true for the requests the transport's
 * own client sends in that attempt (noted as they pass it) and otherwise asks the
 * predicate the caller had, so that whatever else runs in the attempt (a
 * `transformClient`, an `onResponse` hook sending requests of its own) is
 * traced as it would be anywhere else (so is a request the given client
 * builds itself from the marked one, a redirect followed by
 * `HttpClient.followRedirects` around it: the transport asks for a client
 * that follows none). The transport's client, finding that
 * predicate in place, only notes its request; elsewhere (its client used
 * outside a call) it provides `constTrue` around the request, as
 * `HttpClient.withTracerDisabledWhen` would.
 *
 * @internal
 */
import { Context, Effect, Exit, Tracer } from "effect"
import { constTrue } from "effect/Function"
import { HttpClient } from "effect/http"
import type { HttpClientError, HttpClientRequest } from "effect/http"

type Predicate = (request: HttpClientRequest.HttpClientRequest) => boolean

/** The requests the transport's client sent within one attempt (most attempts send one; the others held weakly). */
interface Sent {
  first: HttpClientRequest.HttpClientRequest | undefined
  more: WeakSet<HttpClientRequest.HttpClientRequest> | undefined
}

/** The key of an attempt predicate's record (module-private: no other function has it). */
const sentKey = Symbol("@connected-vehicle/transport/untraced/sent")

type AttemptPredicate = Predicate & { readonly [sentKey]: Sent }

const sentOf = (predicate: Predicate): Sent | undefined => (predicate as Partial<AttemptPredicate>)[sentKey]

/**
 * The context of an attempt's fiber: the caller's, with the predicate above,
 * a record of its own for each attempt (inside another attempt, a call made
 * by a hook or by a fiber it forked: that attempt's predicate asked after
 * its own requests), so that a record lives no longer than its attempt.
 *
 * @internal
 */
export const attemptContext = (context: Context.Context<never>): Context.Context<never> => {
  const caller = Context.get(context, HttpClient.TracerDisabledWhen)
  const sent: Sent = { first: undefined, more: undefined }
  const predicate = ((request) =>
    request === sent.first || (sent.more !== undefined && sent.more.has(request)) || caller(request)) as Predicate & { [sentKey]: Sent }
  predicate[sentKey] = sent
  return Context.add(context, HttpClient.TracerDisabledWhen, predicate)
}

const note = (sent: Sent, request: HttpClientRequest.HttpClientRequest): void => {
  if (sent.first === undefined) sent.first = request
  else if (sent.first !== request) (sent.more ??= new WeakSet()).add(request)
}

/**
 * `base.postprocess` of a request without the client's span: noted as the
 * attempt's within an attempt, else with `constTrue` provided around it.
 *
 * @internal
 */
export const untraced = (
  base: HttpClient.HttpClient,
  request: Effect.Effect<HttpClientRequest.HttpClientRequest, HttpClientError.HttpClientError>
) =>
  Effect.withFiber((fiber) => {
    const sent = sentOf(fiber.getRef(HttpClient.TracerDisabledWhen))
    return sent !== undefined
      ? base.postprocess(Effect.flatMapEager(request, (request) => {
        note(sent, request)
        return Exit.succeed(request)
      }))
      : Effect.provideService(base.postprocess(request), HttpClient.TracerDisabledWhen, constTrue)
  })

/**
 * Whether a span's trace context may be sent: a span of this process, not
 * one that says otherwise (the no-op spans of a fiber whose tracing is off
 * carry `DisablePropagation`, and ids that are not a trace context).
 *
 * @internal
 */
export const propagates = (span: Tracer.AnySpan): span is Tracer.Span =>
  span._tag === "Span" && !Context.get(span.annotations, Tracer.DisablePropagation)
