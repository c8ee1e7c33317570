/**
 * The transport's requests without the `HttpClient`'s span per attempt
 * (unless `httpSpans`), set once per attempt rather than once per request.
 *
 * `HttpClient.TracerDisabledWhen` is a predicate of the request: an attempt's
 * fiber is forked with one that is true for the requests the transport's
 * own client sends (marked as they pass it) and otherwise asks the
 * predicate the caller had, so that whatever else runs in the attempt (a
 * `transformClient`, an `onResponse` hook sending requests of its own) is
 * traced as it would be anywhere else (so is a request the given client
 * builds itself from the marked one, a redirect followed by
 * `HttpClient.followRedirects` around it: the transport asks for a client
 * that follows none). The transport's client, finding that
 * predicate in place, only marks its request; elsewhere (its client used
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

/** The requests the transport's client sent within an attempt. */
const marked = new WeakSet<HttpClientRequest.HttpClientRequest>()
/** The attempt predicate of each caller predicate (one per predicate, not one per attempt). */
const byCaller = new WeakMap<Predicate, Predicate>()
const attemptPredicates = new WeakSet<Predicate>()

/**
 * The context of an attempt's fiber: the caller's, with the predicate above.
 *
 * @internal
 */
export const attemptContext = (context: Context.Context<never>): Context.Context<never> => {
  const caller = Context.get(context, HttpClient.TracerDisabledWhen)
  if (attemptPredicates.has(caller)) return context
  let predicate = byCaller.get(caller)
  if (predicate === undefined) {
    predicate = (request) => marked.has(request) || caller(request)
    byCaller.set(caller, predicate)
    attemptPredicates.add(predicate)
  }
  return Context.add(context, HttpClient.TracerDisabledWhen, predicate)
}

/**
 * `base.postprocess` of a request without the client's span: marked within
 * an attempt, else with `constTrue` provided around it.
 *
 * @internal
 */
export const untraced = (
  base: HttpClient.HttpClient,
  request: Effect.Effect<HttpClientRequest.HttpClientRequest, HttpClientError.HttpClientError>
) =>
  Effect.withFiber((fiber) =>
    attemptPredicates.has(fiber.getRef(HttpClient.TracerDisabledWhen))
      ? base.postprocess(Effect.flatMapEager(request, (request) => {
        marked.add(request)
        return Exit.succeed(request)
      }))
      : Effect.provideService(base.postprocess(request), HttpClient.TracerDisabledWhen, constTrue)
  )

/**
 * Whether a span's trace context may be sent: a span of this process, not
 * one that says otherwise (the no-op spans of a fiber whose tracing is off
 * carry `DisablePropagation`, and ids that are not a trace context).
 *
 * @internal
 */
export const propagates = (span: Tracer.AnySpan): span is Tracer.Span =>
  span._tag === "Span" && !Context.get(span.annotations, Tracer.DisablePropagation)
