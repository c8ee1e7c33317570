/**
 * The legacy (v2.0) authorization-code flow as a real integration runs it:
 * a local redirect listener, the consent URL, the user's visit to it (or,
 * with `follow`, a real HTTP request that follows the authorization server's
 * 302 to the listener, as a browser would), the code exchange, and the
 * tokens kept in the `TokenStore`.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Option, Redacted, Schema } from "effect"
import * as Consent from "@connected-vehicle/auth/Consent"
import type { OAuthConfig } from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import type * as TokenExchange from "@connected-vehicle/auth/TokenExchange"
import type { Token, TokenStore, TokenStoreError } from "@connected-vehicle/auth/TokenStore"
import type { Mode } from "@connected-vehicle/schema/Common"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { Permission } from "@connected-vehicle/schema/OAuth"
import { Transport } from "@connected-vehicle/transport/Transport"
import type { TransportConfig } from "@connected-vehicle/transport/TransportConfig"
import { Connection, ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import { randomBytes } from "node:crypto"
import * as RedirectListener from "./RedirectListener.ts"
import { SampleError } from "./SampleError.ts"

/**
 * The permissions the sample asks for: every legacy read.
 *
 * @example
 * ```ts
 * import { permissions } from "@connected-vehicle/sample/Authorize"
 *
 * const scope = permissions.join(" ") // "read_vehicle_info read_odometer ..."
 * ```
 * @since 0.1.0
 * @category constants
 */
export const permissions: ReadonlyArray<Permission> = [
  "read_vehicle_info",
  "read_odometer",
  "read_location",
  "read_vin",
  "read_engine_oil",
  "read_tires",
  "read_service_history"
]

/**
 * What the flow did, for display: the URLs (the code cut short) and the tokens (redacted).
 *
 * @example
 * ```ts
 * import type { Authorization } from "@connected-vehicle/sample/Authorize"
 *
 * const describe = (auth: Authorization) => `signed in through ${auth.redirectUri}`
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Authorization {
  readonly consentUrl: string
  readonly redirectUri: string
  /** The `Location` of the 302 with the code shortened (only when followed). */
  readonly redirectedTo: string | undefined
  readonly code: string
  readonly token: Token
}

/**
 * `abcdefgh…` (first 8 characters): enough to recognize a one-time code, not to use it.
 *
 * @example
 * ```ts
 * import { shorten } from "@connected-vehicle/sample/Authorize"
 *
 * shorten("code_0123456789") // "code_012…"
 * ```
 * @since 0.1.0
 * @category formatting
 */
export const shorten = (secret: string): string => secret.length <= 8 ? "…" : `${secret.slice(0, 8)}…`

/**
 * No redirect with the flow's `state` reached the listener in time (the user
 * did not finish the consent, or the browser could not reach 127.0.0.1).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { LoginTimeout } from "@connected-vehicle/sample/Authorize"
 *
 * new LoginTimeout({ timeout: Duration.seconds(120) }).message
 * ```
 * @since 0.1.0
 * @category errors
 */
export class LoginTimeout extends Schema.TaggedError<LoginTimeout>()("LoginTimeout", {
  timeout: Schema.Duration
}) {
  override get message() {
    return `No redirect reached the local listener within ${Duration.toSeconds(this.timeout)} s; run login again (--timeout SECONDS to wait longer)`
  }
}

/**
 * How long the flow waits for the redirect by default: 120 s.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { defaultTimeout } from "@connected-vehicle/sample/Authorize"
 *
 * Duration.toSeconds(defaultTimeout) // 120
 * ```
 * @since 0.2.0
 * @category constants
 */
export const defaultTimeout: Duration.Duration = Duration.seconds(120)

/** The wait of the flow: a positive, finite `Duration` input, else an `InvalidArgument` naming `timeout`. */
const timeoutOf = (input: Duration.Input | undefined): Effect.Effect<Duration.Duration, InvalidArgument> => {
  if (input === undefined) return Effect.succeed(defaultTimeout)
  const decoded = typeof input === "number" && Number.isNaN(input) ? Option.none() : Duration.fromInput(input)
  return Option.isSome(decoded) && Duration.isFinite(decoded.value) && Duration.isPositive(decoded.value)
    ? Effect.succeed(decoded.value)
    : Effect.fail(new InvalidArgument({ field: "timeout", message: "timeout: Expected a positive, finite duration" }))
}

/**
 * Where the flow waits for the redirect (the local listener's redirect URI)
 * and for how long.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { ConsentWait } from "@connected-vehicle/sample/Authorize"
 *
 * const wait: ConsentWait = { redirectUri: "http://127.0.0.1:8765/callback", timeout: Duration.seconds(120) }
 * ```
 * @category models
 * @since 0.2.0
 */
export interface ConsentWait {
  readonly redirectUri: string
  readonly timeout: Duration.Duration
}

/**
 * Runs the flow and stores the tokens under `key` (`loginHint` asks for a
 * given user). Redirects with another
 * `state` are answered 400 and ignored; without the right one within
 * `timeout` (a `Duration` input, default {@link defaultTimeout}) the flow
 * fails with {@link LoginTimeout}; a `timeout` that is not a positive, finite
 * duration fails with an `InvalidArgument`.
 *
 * @example
 * ```ts
 * import { Console, Effect } from "effect"
 * import * as Authorize from "@connected-vehicle/sample/Authorize"
 *
 * const login = Authorize.run({ key: "user", port: 0, follow: true, onConsentUrl: (url) => Console.error(url) })
 * ```
 * @since 0.1.0
 * @category commands
 */
export const run = (options: {
  readonly key: string
  readonly port: number
  readonly follow: boolean
  readonly mode?: Mode | undefined
  /** The user to sign in (`login_hint`, which simulators honour; a real consent page lets the user choose). */
  readonly loginHint?: string | undefined
  readonly timeout?: Duration.Input | undefined
  /** Called with the consent URL before the flow waits, and where and how long it waits for the redirect. */
  readonly onConsentUrl: (url: string, wait: ConsentWait) => Effect.Effect<void>
}): Effect.Effect<
  Authorization,
  SampleError | LoginTimeout | InvalidArgument | TokenExchange.TokenError | TokenStoreError,
  Transport | TransportConfig | OAuthConfig | TokenStore
> =>
  Effect.scoped(Effect.gen(function*() {
    const timeout = yield* timeoutOf(options.timeout)
    const state = randomBytes(12).toString("base64url")
    const listener = yield* RedirectListener.start({ port: options.port, state })
    const consentUrl = yield* Consent.make({
      redirectUri: listener.redirectUri,
      permissions,
      state,
      ...(options.mode === undefined ? {} : { mode: options.mode })
    }).pipe(Effect.map((url) => options.loginHint === undefined ? url : withLoginHint(url, options.loginHint)))
    yield* options.onConsentUrl(consentUrl, { redirectUri: listener.redirectUri, timeout })
    let redirectedTo: string | undefined
    const callback = yield* Effect.gen(function*() {
      if (options.follow) redirectedTo = yield* follow(consentUrl, listener.redirectUri)
      return yield* listener.callback
    }).pipe(Effect.timeoutOrElse({ duration: timeout, orElse: () => Effect.fail(new LoginTimeout({ timeout })) }))
    if (callback.code === undefined) {
      return yield* new SampleError({
        reason: `Consent refused: ${callback.error ?? "no code"}${
          callback.errorDescription === undefined ? "" : ` (${callback.errorDescription})`
        }`
      })
    }
    const token = yield* Session.login(options.key, { code: callback.code, redirectUri: listener.redirectUri })
    return {
      consentUrl,
      redirectUri: listener.redirectUri,
      redirectedTo: redirectedTo?.replace(callback.code, shorten(callback.code)),
      code: shorten(callback.code),
      token
    }
  }))

const withLoginHint = (consentUrl: string, loginHint: string) => {
  const url = new URL(consentUrl)
  url.searchParams.set("login_hint", loginHint)
  return url.toString()
}

/**
 * What a browser does: GET the consent URL, read the 302 `Location`, and
 * GET that (the local listener). Returns the `Location`.
 */
const follow = (consentUrl: string, redirectUri: string) =>
  Effect.gen(function*() {
    const { httpClient } = yield* Transport
    const failure = (description: string, url = consentUrl) =>
      new ConnectedVehicleError({ reason: new Connection({ method: "GET", url: url.split("?")[0]!, description }) })
    const response = yield* httpClient.get(consentUrl).pipe(
      Effect.mapError((e) => failure(e.reason.description ?? e.reason._tag))
    )
    const location = response.headers["location"]
    if (response.status !== 302 || location === undefined) {
      const body = yield* Effect.orElseSucceed(response.text, () => "")
      return yield* new SampleError({
        reason: `The consent URL answered ${response.status} instead of a redirect${body === "" ? "" : `: ${body.slice(0, 200)}`}`
      })
    }
    if (!location.startsWith(redirectUri)) {
      return yield* new SampleError({ reason: `The authorization server redirected elsewhere than the redirect URI` })
    }
    const delivered = yield* httpClient.get(location).pipe(
      Effect.mapError((e) => failure(e.reason.description ?? e.reason._tag, location))
    )
    yield* Effect.ignore(delivered.text)
    if (delivered.status !== 200) {
      return yield* new SampleError({
        reason: "The authorization server redirected with another state than the consent URL's (possible CSRF)"
      })
    }
    return location
  })

/**
 * A token as shown to people: `<redacted>` and its length, never a character of it.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { redact } from "@connected-vehicle/sample/Authorize"
 *
 * redact(Redacted.make("at_0123456789abcdef")) // "<redacted> (19 chars)"
 * ```
 * @since 0.1.0
 * @category formatting
 */
export const redact = (token: Redacted.Redacted<string>): string =>
  `<redacted> (${Redacted.value(token).length} chars)`
