/**
 * Options of a simulator run (`Simulator.layer`, `layerRoots`, `layerTest`).
 *
 * @since 0.1.0
 */
import type { DateTime, Duration, Redacted } from "effect"
import type { ControlLimits } from "./DeliveryModels.ts"
import type * as RateLimit from "./RateLimit.ts"
import type { RetireLegacy } from "./Sunset.ts"

/**
 * Options of a simulator run. A duration (`latency`, `headersTimeout`,
 * `requestTimeout`) that is not a non-negative, finite `Duration` input, an
 * `accessTokenLifetime` that is not whole seconds of at least 1, a `seed`
 * that is not a whole number, a count (`vehicles`, `users`, `webhooks`,
 * `connections`) that is not a whole number from 0 to 10,000,000, a
 * `failureRate` outside 0..1 (the CLI's bounds), a
 * `legacySunset` that is not a date or is before the v2.0 deprecation date, or a `webhookSecret` that is not 1 to
 * 1,024 characters, makes the layer constructor throw an `InvalidArgument`
 * naming it; so does a `headersTimeout` over a `requestTimeout` that is not
 * 0 (the CLI's rule), a key the constructor does not take (a misspelt one
 * from JavaScript, such as `headerTimeout`, or another constructor's `port`,
 * `ports` or `host`), and a renamed option (`latencyMillis`,
 * `headersTimeoutMillis`, `requestTimeoutMillis`), naming its new name.
 *
 * @example
 * ```ts
 * import { layer } from "@connected-vehicle/simulator/Simulator"
 * import type { SimulatorOptions } from "@connected-vehicle/simulator/Simulator"
 *
 * const options: SimulatorOptions = { seed: 7, latency: "20 millis", requestTimeout: "5 seconds" }
 * const SimulatorLive = layer(options)
 * ```
 * @since 0.1.0
 * @category models
 */
export interface SimulatorOptions {
  /** Seed of the dataset (a whole number; default 42). */
  readonly seed?: number
  /** Number of vehicles (0 to 10,000,000; default 50; raised to at least `connections`). */
  readonly vehicles?: number
  /** Number of users (0 to 10,000,000; default 20). */
  readonly users?: number
  /** Number of webhooks (0 to 10,000,000; default 8). */
  readonly webhooks?: number
  /** Number of connections, one per vehicle (0 to 10,000,000; default 40). */
  readonly connections?: number
  /** Client id accepted by the authorization server (default `demo-client-id`). */
  readonly clientId?: string
  /** Client secret accepted by the authorization server (default `demo-client-secret`). */
  readonly clientSecret?: string
  /**
   * Redirect URIs registered for the client (default {@link DEFAULT_REDIRECT_URIS}:
   * loopback `http` on any port, and `https://app.example`). An entry is
   * `scheme://host[:port]` (any path) or a full URI (that path only); port `*`
   * is any port. `/oauth/authorize` answers 400 for any other `redirect_uri`.
   */
  readonly redirectUris?: ReadonlyArray<string>
  /**
   * Whether the vehicle connection's `permissions` are enforced (default
   * `true`, as the service does): a v3 signal whose capability permission
   * the connection lacks is a `403` (the signals list reports it as a
   * per-signal `ERROR`), and a legacy read (or batch entry) needs its
   * permission both in the token's scopes and in the connection. Webhook
   * events (state events, `FIRST_DELIVERY`, bursts) carry such a signal as
   * the signals list shows it: `ERROR` / `FORBIDDEN`, no body. `false`
   * lets every connection read every signal (the token's scopes are still
   * checked).
   */
  readonly enforcePermissions?: boolean
  /** Share of requests answered with an injected 500 (0..1, default 0; seeded). */
  readonly failureRate?: number
  /** Latency added to every request (a `Duration` input; default 0; a number is milliseconds). */
  readonly latency?: Duration.Input
  /**
   * A removal (sunset) date of the deprecated v2.0 endpoints: a `DateTime`,
   * a `Date`, epoch milliseconds or an ISO 8601 string whose fields exist,
   * not before the deprecation date 2026-12-01 (RFC 9745: `Sunset` is not
   * earlier than `Deprecation`) and before 10000-01-01 (`Sunset` is an
   * IMF-fixdate, a 4-digit year); anything else, `"2027-02-30"`,
   * `"2026-06-01"` or `"99999"` included, makes the layer constructor throw an
   * `InvalidArgument` naming it. The spec
   * gives none (section 9: v2.0 is announced for deprecation on December 1,
   * 2026), so by default there is none: the deprecated responses carry
   * `Deprecation` and `Link` but no `Sunset`. Given, they carry `Sunset`
   * (RFC 8594) with this date too, and `retireLegacy: "afterSunset"` retires
   * them from it.
   */
  readonly legacySunset?: DateTime.DateTime | Date | number | string
  /**
   * Rehearse the removal of v2.0: `true` answers every deprecated `/v2.0`
   * request `410 Gone` (section 7 envelope); `"afterSunset"` does so once
   * the simulator's `Clock` reaches `legacySunset` (which it needs). The
   * legacy vehicle list (`GET /v2.0/vehicles`, not deprecated: section 9.3)
   * keeps answering in every mode. Default `false`: v2.0 answers, with its
   * deprecation headers.
   */
  readonly retireLegacy?: RetireLegacy
  /**
   * The webhook secret (the application's management token in the real
   * service): the key of every delivery's `SC-Signature` and of the `VERIFY`
   * challenge (default `Delivery.DEFAULT_WEBHOOK_SECRET`): 1 to 1,024
   * characters, as a webhook's own `secret`, which a webhook created with one
   * uses instead.
   */
  readonly webhookSecret?: Redacted.Redacted<string> | string
  /**
   * Loopback servers: a request's head (request line and headers) must
   * arrive within this `Duration` of its first byte, else `408` with
   * the envelope and the connection closes (default
   * {@link DEFAULT_HEADERS_TIMEOUT}, 10 s, at most `requestTimeout`; 0 =
   * only the request timeout). One over a `requestTimeout` that is not 0
   * makes the layer constructor throw an `InvalidArgument` naming it.
   */
  readonly headersTimeout?: Duration.Input
  /**
   * Loopback servers: a whole request (head and body) must arrive within this
   * `Duration` of its first byte, else `408` as above (default
   * {@link DEFAULT_REQUEST_TIMEOUT}, 30 s; 0 = no limit).
   */
  readonly requestTimeout?: Duration.Input
  /** Per-vehicle and per-application request limits (default none; see `RateLimit`). */
  readonly rateLimit?: RateLimit.RateLimitOptions
  /**
   * Lifetime of the access tokens issued (`expires_in`), in whole seconds of
   * at least 1 (default the spec's 7200 s): a test in another process, on the
   * wall clock, can see tokens expire and be refreshed.
   */
  readonly accessTokenLifetime?: Duration.Input
  /**
   * How many live grants are kept before the oldest are forgotten (a
   * sixteenth of the limit at a time): `codes`, unexchanged authorization
   * codes (default 10,000, `State.CODE_LIMIT`); `tokens`, access tokens and
   * as many refresh tokens (default 100,000, `State.TOKEN_LIMIT`). Whole
   * numbers of at least 1. A refresh token not used while more than `tokens`
   * newer ones were issued is forgotten before its 60 days.
   */
  readonly grantLimits?: { readonly codes?: number | undefined; readonly tokens?: number | undefined } | undefined
  /**
   * How much the loopback control routes keep: `webhooks`, webhooks created
   * with `POST /_simulator/webhooks` (default 1,000,
   * `Delivery.WEBHOOK_LIMIT`); `vehicleErrors`, errors injected with `POST
   * /_simulator/vehicles/:id/errors` and not yet resolved (default 10,000,
   * `Delivery.VEHICLE_ERROR_LIMIT`). Whole numbers of at least 1. One more is
   * refused with `409` and the section 7 envelope (nothing kept, nothing
   * sent); the in-process `createWebhook` / `injectVehicleError` fail with
   * that `WebhookControlError`.
   */
  readonly controlLimits?: ControlLimits | undefined
}
