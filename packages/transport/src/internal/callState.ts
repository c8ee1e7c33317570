/**
 * The description of a call's method and the state of one call, shared by
 * the call's middleware (`./call.ts`, `./authenticated.ts`).
 *
 * @internal
 */
import type { Duration, Effect, Redacted } from "effect"
import type { HttpClient, HttpClientRequest, HttpClientResponse } from "effect/http"
import type { Credentials } from "../Credentials.ts"
import type { TransportConfig } from "../TransportConfig.ts"
import type { Admit, CallOptions, Result } from "../Transport.ts"
import type { Hook } from "./hooks.ts"
import type * as SdkLog from "./log.ts"
import type { Policy } from "./policy.ts"
import type { Given } from "./request.ts"
import type { AnyError } from "./responses.ts"
import { withoutCredentials } from "./url.ts"

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
  /** The statuses the contract declares for the endpoint (its successes' and its errors'), from its declaration. */
  readonly declared: ReadonlySet<number>
  /** The success of a 2xx `response` whose body, already read, is `text`. */
  readonly decode: (response: HttpClientResponse.HttpClientResponse, text: string) => Effect.Effect<unknown, unknown>
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
  /** An endpoint of the authorization server: an OAuth error body (RFC 6749) is its `OAuth` reason. */
  readonly authorizationServer: boolean
}

/**
 * The state of one call.
 *
 * @internal
 */
export interface Call {
  readonly request: HttpClientRequest.HttpClientRequest
  readonly policy: Policy
  readonly deadline: number
  readonly hooks: Hook | undefined
  refreshed: boolean
  /** The token a 401 refused, and that 401, once the call refreshed it. */
  rejected: { readonly token: Redacted.Redacted<string>; readonly error: AnyError } | undefined
  attempts: number
  url: string | undefined
  /** What the current attempt saw of the response head, for a failure that comes after it. */
  status: number | undefined
  requestId: string | undefined
  retryAfter: Duration.Duration | undefined
  /** The body of the 2xx the exchange read, for the decode. */
  body: string | undefined
  /** The current attempt's response once its head came, released if the attempt is interrupted. */
  response: HttpClientResponse.HttpClientResponse | undefined
  /**
   * The request the current attempt hands to the client (marked by it if interrupted before writing any:
   * `RequestNotSent.markNotSent`), set by the exchange when the attempt's effect is built (with a request at hand:
   * before the attempt starts, once for all of them when they send the same request).
   */
  sending: HttpClientRequest.HttpClientRequest | undefined
  /** Whether an attempt may have reached the service (a response head, a timeout, a retried failure): the call then never says `sent: false`. */
  mayHaveSent: boolean
}

/**
 * The `HttpClient` of a call's middleware: its failures are the call's typed errors.
 *
 * @internal
 */
export type Client = HttpClient.HttpClient.With<AnyError>

/** @internal */
export type Method = (input: unknown, options?: CallOptions) => Effect.Effect<Result<unknown>, AnyError>


/**
 * The request's URL without credentials, once per call (for logs and errors).
 *
 * @internal
 */
export const urlOf = (call: Call): string => call.url ??= withoutCredentials(call.request.url, call.request.urlParams)
