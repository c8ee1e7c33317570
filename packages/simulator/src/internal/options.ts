/**
 * Checks of the simulator's options that the layer constructors make before
 * building anything: the numbers (with the CLI's bounds), the durations, the
 * v2.0 removal date and the webhook secret.
 *
 * @internal
 */
import { DateTime, Duration, Option, Redacted } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { checkedHost } from "./address.ts"
import type { RetireLegacy } from "../Sunset.ts"
import type { RateLimitOptions } from "../RateLimit.ts"
import { RateLimitConfigError, resolveLimits } from "../RateLimit.ts"
import { secretIssue } from "./deliveryPolicy.ts"
import { DEPRECATION_EPOCH, epochOf, SUNSET_LIMIT } from "./sunset.ts"
import { knownKeys, renamedField } from "./optionKeys.ts"
import type { OwnKey } from "./optionKeys.ts"
import { redirectUriUsable } from "./redirectUris.ts"

/** @internal */
export const DEFAULT_HEADERS_TIMEOUT: Duration.Duration = Duration.seconds(10)

/** @internal */
export const DEFAULT_REQUEST_TIMEOUT: Duration.Duration = Duration.seconds(30)

/**
 * A duration option: `fallback` when it is `undefined`, else a non-negative,
 * finite `Duration` input; anything else throws an `InvalidArgument` naming
 * `field`.
 */
export const duration = (field: string, input: Duration.Input | undefined, fallback: Duration.Duration): Duration.Duration => {
  if (input === undefined) return fallback
  const invalid = new InvalidArgument({ field, message: `${field}: Expected a non-negative, finite duration` })
  if (typeof input === "number" && Number.isNaN(input)) throw invalid
  let decoded: Option.Option<Duration.Duration> = Option.none()
  try {
    decoded = Duration.fromInput(input)
  } catch {
    // not a duration input
  }
  if (Option.isNone(decoded) || !Duration.isFinite(decoded.value) || Duration.isNegative(decoded.value)) throw invalid
  return decoded.value
}

/** The checked durations of the options (see `SimulatorOptions`). */
export interface Durations {
  readonly latency: Duration.Duration
  readonly headersTimeout: Duration.Duration
  readonly requestTimeout: Duration.Duration
}

/** A timeout in Node's unit, whole milliseconds: a part of one rounds up (0 would be no limit). */
export const wholeMillis = (timeout: Duration.Duration): number => Math.ceil(Duration.toMillis(timeout))

/**
 * The rule of the two request timeouts, the layers' and the CLI's, in whole
 * milliseconds (0 turns one off): a head timeout that is `given` must not
 * exceed the request timeout when that is on (`"exceeds"`); one not given is
 * {@link DEFAULT_HEADERS_TIMEOUT}, at most the request timeout. The head
 * timeout to use, or `"exceeds"`.
 */
export const headersTimeoutMillis = (given: number | undefined, requestMillis: number): number | "exceeds" => {
  if (given === undefined) {
    const fallback = wholeMillis(DEFAULT_HEADERS_TIMEOUT)
    return requestMillis > 0 ? Math.min(fallback, requestMillis) : fallback
  }
  return requestMillis > 0 && given > requestMillis ? "exceeds" : given
}

/**
 * The durations of the options, checked; throws an `InvalidArgument` naming
 * the first that is not a duration, and `headersTimeout` when it exceeds
 * `requestTimeout` ({@link headersTimeoutMillis}).
 */
export const durations = (options: {
  readonly latency?: Duration.Input | undefined
  readonly headersTimeout?: Duration.Input | undefined
  readonly requestTimeout?: Duration.Input | undefined
} | undefined): Durations => {
  const latency = duration("latency", options?.latency, Duration.zero)
  const given = options?.headersTimeout === undefined ? undefined : duration("headersTimeout", options.headersTimeout, Duration.zero)
  const requestTimeout = duration("requestTimeout", options?.requestTimeout, DEFAULT_REQUEST_TIMEOUT)
  const requestMillis = wholeMillis(requestTimeout)
  const headers = headersTimeoutMillis(given === undefined ? undefined : wholeMillis(given), requestMillis)
  if (headers === "exceeds") {
    throw new InvalidArgument({
      field: "headersTimeout",
      message: `headersTimeout: Expected at most requestTimeout (${requestMillis} ms; 0 turns it off), got ${wholeMillis(given!)} ms`
    })
  }
  return { latency, headersTimeout: given ?? Duration.millis(headers), requestTimeout }
}

/**
 * The `webhookSecret` option, checked: absent (the default), or 1 to 1,024
 * characters (`Delivery.make`'s rule, the one of a webhook's own `secret`);
 * anything else throws an `InvalidArgument` naming `webhookSecret` (never
 * quoting the secret).
 */
export const webhookSecret = (input: Redacted.Redacted<string> | string | undefined): void => {
  if (input === undefined) return
  const value: unknown = Redacted.isRedacted(input) ? Redacted.value(input) : input
  const issue = typeof value === "string" ? secretIssue(value) : "must be a string"
  if (issue !== undefined) throw new InvalidArgument({ field: "webhookSecret", message: `webhookSecret ${issue}` })
}

/**
 * Why a v2.0 removal date cannot be used, or undefined: one before the
 * deprecation date (RFC 9745 section 3: `Sunset` is not earlier than
 * `Deprecation`), or one at or after 10000-01-01 (the `Sunset` header is an
 * IMF-fixdate, RFC 8594: a 4-digit year).
 */
export const sunsetIssue = (millis: number): string | undefined =>
  millis < DEPRECATION_EPOCH
    ? `a removal date not earlier than the v2.0 deprecation date, ${new Date(DEPRECATION_EPOCH).toISOString().slice(0, 10)} ` +
      `(RFC 9745: Sunset is not before Deprecation); got ${new Date(millis).toISOString()}`
    : millis >= SUNSET_LIMIT
    ? `a removal date before 10000-01-01 (the Sunset header is an IMF-fixdate, a 4-digit year); got ${new Date(millis).toISOString()}`
    : undefined

/**
 * The v2.0 removal date (`legacySunset`) in epoch milliseconds, or undefined
 * (none, the default); a value that is not a date throws an
 * `InvalidArgument` naming it, and so does one before the deprecation date
 * ({@link sunsetIssue}) and `retireLegacy: "afterSunset"` without one.
 */
export const legacySunset = (
  input: DateTime.DateTime | Date | number | string | undefined,
  retire: RetireLegacy | undefined
): number | undefined => {
  if (input === undefined) {
    if (retire === "afterSunset") {
      throw new InvalidArgument({
        field: "retireLegacy",
        message: "retireLegacy: \"afterSunset\" needs legacySunset, the removal date (the spec gives none)"
      })
    }
    return undefined
  }
  // the option's forms only: a DateTime, a Date, epoch milliseconds or an ISO 8601 string
  const known = DateTime.isDateTime(input) || input instanceof Date || typeof input === "number" || typeof input === "string"
  const millis = epochOf("legacySunset", known ? input : Number.NaN)
  const issue = sunsetIssue(millis)
  if (issue !== undefined) throw new InvalidArgument({ field: "legacySunset", message: `legacySunset: Expected ${issue}` })
  return millis
}

/**
 * The `rateLimit` option, checked (`RateLimit.resolveLimits`: a limit a
 * positive integer, a window of whole milliseconds from 1 ms to
 * `RateLimit.MAX_WINDOW`); else an
 * `InvalidArgument` naming `rateLimit.perVehicle` or `rateLimit.perApplication`.
 */
export const rateLimit = (input: RateLimitOptions | undefined): void => {
  if (input === undefined) return
  for (const kind of ["perVehicle", "perApplication"] as const) {
    const resolved = resolveLimits({ [kind]: input?.[kind] })
    if (resolved instanceof RateLimitConfigError) {
      throw new InvalidArgument({ field: `rateLimit.${kind}`, message: `rateLimit.${resolved.detail}` })
    }
  }
}

/** The largest dataset count (`vehicles`, `users`, `webhooks`, `connections`): the CLI's bound too. */
export const COUNT_MAX = 10_000_000

/** The largest port: the CLI's bound too. */
export const PORT_MAX = 65_535

const invalid = (field: string, expected: string, input: unknown) =>
  new InvalidArgument({ field, message: `${field}: Expected ${expected}, got ${typeof input === "string" ? JSON.stringify(input) : String(input)}` })

/** A whole number from `minimum` to `maximum`, or `undefined` (the default); else an `InvalidArgument` naming `field`. */
export const integerWithin = (field: string, input: unknown, minimum: number, maximum: number): void => {
  if (input === undefined) return
  if (typeof input !== "number" || !Number.isSafeInteger(input) || input < minimum || input > maximum) {
    throw invalid(field, `a whole number from ${minimum.toLocaleString("en-US")} to ${maximum.toLocaleString("en-US")}`, input)
  }
}

/** The count limits of `group` (`grantLimits`, `controlLimits`): each a whole number of at least 1, or unset. */
const limits = (group: string, input: unknown, fields: ReadonlyArray<string>): void => {
  if (input === undefined) return
  if (typeof input !== "object" || input === null) throw invalid(group, `an object of ${fields.join(" and ")}`, input)
  for (const field of fields) integerWithin(`${group}.${field}`, (input as Readonly<Record<string, unknown>>)[field], 1, Number.MAX_SAFE_INTEGER)
}

/**
 * Refuses a field of `input` renamed to a `Duration` input (`renamed`, pairs
 * of old and new names) with an `InvalidArgument` naming the new name;
 * `prefix` is put before both names (`faults[0].`).
 */
export const refuseRenamed = (
  input: Readonly<Record<string, unknown>>,
  renamed: ReadonlyArray<readonly [string, string]>,
  prefix = ""
): void => {
  for (const [old, name] of renamed) {
    if (input[old] !== undefined) throw renamedField(old, name, prefix)
  }
}

/**
 * The numbers of the options, with the CLI's bounds: `seed` a whole number,
 * the dataset counts 0 to {@link COUNT_MAX}, `failureRate` 0 to 1, `port`
 * and each of `ports` 0 to {@link PORT_MAX}, the `grantLimits` and
 * `controlLimits` counts at least 1. Else an `InvalidArgument` naming the
 * option.
 */
export const numbers = (options: Readonly<Record<string, unknown>> | undefined): void => {
  if (options === undefined) return
  integerWithin("seed", options.seed, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
  limits("grantLimits", options.grantLimits, ["codes", "tokens"])
  limits("controlLimits", options.controlLimits, ["webhooks", "vehicleErrors"])
  for (const field of ["vehicles", "users", "webhooks", "connections"]) integerWithin(field, options[field], 0, COUNT_MAX)
  const rate = options.failureRate
  if (rate !== undefined && (typeof rate !== "number" || !(rate >= 0 && rate <= 1))) throw invalid("failureRate", "a share from 0 to 1", rate)
  integerWithin("port", options.port, 0, PORT_MAX)
  const ports = options.ports
  if (ports === undefined) return
  if (typeof ports !== "object" || ports === null) throw invalid("ports", "an object of ports by root", ports)
  for (const [root, port] of Object.entries(ports)) integerWithin(`ports.${root}`, port, 0, PORT_MAX)
}

/**
 * The `accessTokenLifetime` option in whole seconds of at least 1, or
 * `undefined` (the spec's 7200 s); else an `InvalidArgument` naming it.
 */
export const accessTokenLifetime = (input: Duration.Input | undefined): number | undefined => {
  if (input === undefined) return undefined
  let seconds = Number.NaN
  try {
    seconds = Duration.toSeconds(duration("accessTokenLifetime", input, Duration.zero))
  } catch {
    // reported below
  }
  if (!Number.isSafeInteger(seconds) || seconds < 1) {
    throw invalid("accessTokenLifetime", "whole seconds, at least 1 (e.g. \"30 seconds\")", input)
  }
  return seconds
}

/** The checked options: the durations, the v2.0 removal date and the access tokens' lifetime in seconds. */
export interface Checked extends Durations {
  readonly legacySunset: number | undefined
  readonly accessSeconds: number | undefined
}

/**
 * The client the authorization server accepts: a `clientId` and a
 * `clientSecret` that are non-empty strings, `redirectUris` that it can
 * match (`redirectUriUsable`: the SDK's rule, and for `http` or `https` no
 * user information: what the CLI refuses too); else an `InvalidArgument`
 * naming the option (never quoting the secret).
 */
const client = (options: {
  readonly clientId?: string | undefined
  readonly clientSecret?: string | undefined
  readonly redirectUris?: ReadonlyArray<string> | undefined
} | undefined): void => {
  for (const field of ["clientId", "clientSecret"] as const) {
    const value: unknown = options?.[field]
    if (value !== undefined && (typeof value !== "string" || value === "")) {
      throw new InvalidArgument({ field, message: `${field}: Expected a non-empty string` })
    }
  }
  const uris: unknown = options?.redirectUris
  if (uris === undefined) return
  const unusable = Array.isArray(uris) ? uris.find((uri) => typeof uri !== "string" || !redirectUriUsable(uri)) : uris
  if (Array.isArray(uris) && unusable === undefined) return
  throw new InvalidArgument({
    field: "redirectUris",
    message: `redirectUris: Expected absolute URIs without white space, control characters or fragment (http or https as scheme://host[:port|:*][/path], without user information; another scheme, such as myapp://callback, matched exactly), got ${JSON.stringify(unusable)}`
  })
}

/**
 * The checked options of `constructor` (see `SimulatorOptions`, and its
 * `own` keys: the host, no zone id, and the ports); throws an
 * `InvalidArgument` naming the first key it does not take or the first
 * option that is not valid.
 */
export const checked = (options: {
  readonly clientId?: string | undefined
  readonly clientSecret?: string | undefined
  readonly redirectUris?: ReadonlyArray<string> | undefined
  readonly latency?: Duration.Input | undefined
  readonly headersTimeout?: Duration.Input | undefined
  readonly requestTimeout?: Duration.Input | undefined
  readonly legacySunset?: DateTime.DateTime | Date | number | string | undefined
  readonly retireLegacy?: RetireLegacy | undefined
  readonly webhookSecret?: Redacted.Redacted<string> | string | undefined
  readonly rateLimit?: RateLimitOptions | undefined
  readonly accessTokenLifetime?: Duration.Input | undefined
  readonly host?: string | undefined
} | undefined, constructor: string, own: ReadonlyArray<OwnKey>): Checked => {
  knownKeys(options, constructor, own)
  checkedHost(options?.host)
  client(options)
  numbers(options as Readonly<Record<string, unknown>> | undefined)
  const checkedDurations = durations(options)
  const accessSeconds = accessTokenLifetime(options?.accessTokenLifetime)
  const sunset = legacySunset(options?.legacySunset, options?.retireLegacy)
  webhookSecret(options?.webhookSecret)
  rateLimit(options?.rateLimit)
  return { ...checkedDurations, legacySunset: sunset, accessSeconds }
}
