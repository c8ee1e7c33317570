/**
 * The call's credential: each attempt reads the current token, is admitted
 * and sends it at once; a 401 refreshes it and replays once per call. The
 * waits for the credential and for `admit` are bounded by the attempt's
 * timeout and the call's budget.
 *
 * @internal
 */
import { Clock, Duration, Effect, Redacted } from "effect"
import { HttpClient } from "effect/http"
import type { HttpClientRequest, HttpClientResponse } from "effect/http"
import * as ConnectedVehicleError from "../ConnectedVehicleError.ts"
import { type Call, type Client, type MethodSpec, urlOf } from "./callState.ts"
import { withBearer } from "./request.ts"
import type { AnyError } from "./responses.ts"
import { fail, statusOf, tagOf } from "./responses.ts"
import * as Timeout from "./timeout.ts"

/**
 * `effect` within what is left of the call's budget: a `Timeout` (of the
 * budget, `maxElapsed`) once it runs out. Bounds what an attempt waits for
 * `admit` before its own timeout starts.
 */
const withinBudget = <A>(spec: MethodSpec, call: Call, effect: Effect.Effect<A, AnyError>): Effect.Effect<A, AnyError> =>
  Effect.withFiber((fiber) => {
    const left = call.deadline - fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()
    const budget = Duration.millis(call.policy.maxElapsedMillis)
    return Timeout.timeoutOrElse(
      effect,
      Math.max(1, left),
      // nothing of the request sent yet
      () => Effect.fail(fail(new ConnectedVehicleError.Timeout({ method: spec.method, url: urlOf(call), timeout: budget, sent: false })))
    )
  })

/**
 * The wait for the credential (`credentials.token`, or its refresh after a
 * 401: a token request, or another process's renewal) within the attempt's
 * timeout, cut to what is left of the call's budget; `effect` is told the
 * instant that wait ends (`tokenBy`), so that a credential known to come
 * later fails at once with why. Once it runs out, a `Credentials` reason
 * that says so, with that `timeout`, not a `Timeout` of the request that
 * was never sent. Not retried: the renewal it waited for has bounds of its
 * own, and a retry after it failed would start another, sending its
 * refresh token again.
 */
const credentialWithin = <A>(call: Call, effect: (deadline: number) => Effect.Effect<A, AnyError>): Effect.Effect<A, AnyError> =>
  Effect.withFiber((fiber) => {
    const now = fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()
    const left = call.deadline - now
    const { maxElapsedMillis, timeoutMillis } = call.policy
    const limit = Math.max(1, Math.min(timeoutMillis, left))
    const byTimeout = timeoutMillis <= left
    const spent = byTimeout ? timeoutMillis : maxElapsedMillis
    const which = byTimeout ? `${spent} ms (the timeout)` : `${spent} ms (the call's budget, maxElapsed)`
    return Timeout.timeoutOrElse(effect(now + limit), limit, () =>
      Effect.fail(fail(
        new ConnectedVehicleError.Credentials({
          description: `the credential did not come within ${which}: its token request, or another process's renewal, is still running`,
          timeout: Duration.millis(spent)
        })
      )))
  })

/**
 * Whether a credential read again after `admit` failed only for now: for a
 * moment (`transient`), or because the renewal it waits for comes after its
 * deadline (`retryAfter`): the token read before the wait serves.
 */
const forLater = (error: AnyError): boolean =>
  error._tag === "ConnectedVehicleError" && error.reason._tag === "Credentials" &&
  (error.reason.transient === true || error.reason.retryAfter !== undefined || error.reason.timeout !== undefined)

/** Whether `error` is a credential that failed for a moment (the token store: `transient`). */
const transientCredential = (error: AnyError): boolean =>
  error._tag === "ConnectedVehicleError" && error.reason._tag === "Credentials" && error.reason.transient === true

/**
 * How long an admitted attempt waits for its token read again (a store's
 * read, not a renewal): past it, the token read before the wait is sent.
 */
const rereadMillis = 25

/**
 * The client with the call's credential: each attempt reads the current
 * token, waits for `admit` and sends the request at once (so a request goes
 * when its slot is taken, however long the token took), with the token read
 * again when that comes at once (`rereadMillis`: one renewed during a long
 * wait), else the one read before. A 401 refreshes the token and replays
 * (read, then admitted again), once per call (a refresh that failed for a
 * moment, `transient`, does not count: the call's retry refreshes again).
 * Waiting for `admit` is bounded by what is left of the call's budget;
 * waiting for the credential and its refresh by the attempt's timeout too
 * (`credentialWithin`). Without credentials, the client itself.
 *
 * @internal
 */
export const authenticated = (spec: MethodSpec, call: Call) => (client: Client): Client => {
  const { admit, credentials, log, method } = spec
  if (credentials === undefined) return client
  const { tokenBy, refreshBy } = credentials
  const token = credentialWithin(call, tokenBy === undefined ? () => credentials.token : (deadline) => credentials.tokenBy!(deadline))
  // the token again, when it comes within `rereadMillis` (cut to what is left of the call's budget);
  // a renewal under way, one that failed for a moment or would come too late, or the token the service
  // rejected: `read`. Any other failure is the attempt's (the user signed out during the wait: nothing sent)
  const reread = (read: Redacted.Redacted<string>) =>
    Effect.withFiber((fiber) => {
      const now = fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()
      const left = call.deadline - now
      if (left <= 0) {
        const budget = Duration.millis(call.policy.maxElapsedMillis)
        return Effect.fail(fail(new ConnectedVehicleError.Timeout({ method: spec.method, url: urlOf(call), timeout: budget, sent: false })))
      }
      const limit = Math.min(rereadMillis, left)
      const again = Effect.map(
        Effect.catchIf(tokenBy === undefined ? credentials.token : credentials.tokenBy!(now + limit), forLater, () => Effect.succeed(read)),
        (next) => call.rejected !== undefined && Redacted.value(next) === Redacted.value(call.rejected.token) ? read : next
      )
      return Timeout.timeoutOrElse(again, limit, () => Effect.succeed(read))
    })
  // `send` with the token `read`, once admitted: sent at once after the wait, with the token read again if it comes at once
  const admitted = <A>(read: Redacted.Redacted<string>, send: (token: Redacted.Redacted<string>) => Effect.Effect<A, AnyError>): Effect.Effect<A, AnyError> =>
    admit === undefined ? send(read) : Effect.andThen(withinBudget(spec, call, admit(call.request)), Effect.flatMap(reread(read), send))
  // the 401 of `sent`: its refresh, then the request replayed with the new token, admitted after it is read (once per call)
  const refreshed = (request: HttpClientRequest.HttpClientRequest, sent: Redacted.Redacted<string>, error: AnyError) => {
    call.refreshed = true
    call.rejected = { token: sent, error }
    const renew = refreshBy === undefined ? () => credentials.refresh(sent) : (deadline: number) => credentials.refreshBy!(sent, deadline)
    const refresh = Effect.tapError(credentialWithin(call, renew), (failure) =>
      Effect.sync(() => {
        if (transientCredential(failure)) call.refreshed = false
      }))
    // the refused token again (the token endpoint gave it back): the 401 is the call's, no replay
    const replay = (next: Redacted.Redacted<string>) =>
      Redacted.value(next) === Redacted.value(sent) ? Effect.fail(error) : admitted(next, (current) =>
        Effect.andThen(
          log.log("Debug", "replaying after 401 with a refreshed token", { method, url: urlOf(call) }),
          client.execute(withBearer(request, current))
        ))
    return Effect.flatMap(refresh, (renewed) => renewed ? Effect.flatMap(token, replay) : Effect.fail(error))
  }
  // `HttpClient.transform` without the attempt it would build and not use (each attempt is `client.execute`)
  return HttpClient.makeWith((effect) => Effect.flatMapEager(effect, (request) =>
    Effect.flatMap(token, (read): Effect.Effect<HttpClientResponse.HttpClientResponse, AnyError> => {
      // a retry after a refresh that ran out of time: the token the service refused is not sent
      // again while its renewal runs, the refresh is waited for again instead
      const rejected = call.rejected
      if (rejected !== undefined && !call.refreshed && Redacted.value(rejected.token) === Redacted.value(read)) {
        return refreshed(request, read, rejected.error)
      }
      return admitted(read, (sent) =>
        Effect.catch(client.execute(withBearer(request, sent)), (error) =>
          call.refreshed || statusOf(error) !== 401 || tagOf(error) === "Credentials" ? Effect.fail(error) : refreshed(request, sent, error)))
    })), client.preprocess)
}
