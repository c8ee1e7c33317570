/**
 * Checks of the transport's options.
 *
 * @internal
 */
import { Duration, LogLevel, Option } from "effect"
import { headerValueIssue, InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { unknownOption } from "../Setting.ts"

/**
 * A duration option: `fallback` when it is `undefined`; a `Duration` input
 * that is finite and positive (`positive`) or non-negative, else an
 * `InvalidArgument` naming `field` is thrown.
 */
export const duration = (field: string, input: Duration.Input | undefined, fallback: Duration.Duration, positive: boolean): Duration.Duration => {
  if (input === undefined) return fallback
  let decoded: Option.Option<Duration.Duration> = Option.none()
  try {
    // `Duration.fromInput(NaN)` is zero: NaN is refused here
    if (!Number.isNaN(input)) decoded = Duration.fromInput(input)
  } catch {
    // not a duration input
  }
  const millis = Option.isSome(decoded) ? Duration.toMillis(decoded.value) : Number.NaN
  if (!Number.isFinite(millis) || millis < 0 || (positive && millis === 0)) {
    throw new InvalidArgument({ field, message: `${field}: Expected a ${positive ? "positive" : "non-negative"}, finite duration` })
  }
  return decoded._tag === "Some" ? decoded.value : fallback
}

export const check = (field: string, value: number | undefined, fallback: number, valid: (n: number) => boolean, expected: string): number => {
  if (value === undefined) return fallback
  if (typeof value !== "number" || !valid(value)) throw new InvalidArgument({ field, message: `${field}: Expected ${expected}` })
  return value
}

/**
 * Whether an options object is absent: `true` for `undefined`, `false` for an
 * object that is not an array whose keys are all `known` (when given), else an
 * `InvalidArgument` naming `field` (or its unknown key, below it) is thrown.
 */
export const unset = (field: string, value: object | undefined, known?: ReadonlyArray<string>): value is undefined => {
  if (value === undefined) return true
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidArgument({ field, message: `${field}: Expected an object` })
  }
  const unknown = known === undefined ? undefined : unknownOption(value, known, field)
  if (unknown !== undefined) throw unknown
  return false
}

/** The top-level options: an object (else an `InvalidArgument` naming `options`) whose keys are all `known` (else one naming the key). */
export const keys = <A extends object>(options: A, known: ReadonlyArray<string>): A => {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new InvalidArgument({ field: "options", message: "options: Expected an object" })
  }
  const unknown = unknownOption(options, known)
  if (unknown !== undefined) throw unknown
  return options
}

/** A boolean option: `fallback` when it is `undefined`, else it must be a boolean (an `InvalidArgument` naming `field` is thrown). */
export const flag = (field: string, value: boolean | undefined, fallback: boolean): boolean => {
  if (value === undefined) return fallback
  if (typeof value !== "boolean") throw new InvalidArgument({ field, message: `${field}: Expected a boolean` })
  return value
}

/** A header name: an RFC 9110 token (`!#$%&'*+-.^_\`|~`, digits and letters, one or more). */
export const isHeaderName = (name: string): boolean => /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)

/**
 * Header names, trimmed, lower-case and without repeats; `fallback` when the
 * option is `undefined`. A name that is not a header name ({@link isHeaderName},
 * once trimmed), an empty list or one that is not strings throws an
 * `InvalidArgument` naming `requestIdHeader`.
 */
export const headerNames = (option: string | ReadonlyArray<string> | undefined, fallback: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (option === undefined) return fallback
  const given: ReadonlyArray<unknown> = typeof option === "string" ? [option] : Array.isArray(option) ? option : [option]
  const refuse = (expected: string) => new InvalidArgument({ field: "requestIdHeader", message: `requestIdHeader: ${expected}` })
  if (!given.every((name) => typeof name === "string")) throw refuse("Expected a header name or a list of header names")
  if (given.length === 0) throw refuse("Expected at least one header name")
  const names = (given as ReadonlyArray<string>).map((name) => name.trim().toLowerCase())
  const bad = names.findIndex((name) => !isHeaderName(name))
  if (bad !== -1) throw refuse(`Expected header names (RFC 9110 tokens), not ${JSON.stringify(names[bad]!.slice(0, 40))}`)
  return [...new Set(names)]
}

/**
 * Why `value` cannot be the `User-Agent`, `undefined` when it can: a
 * non-blank header value (`headerValueIssue` of the schema: only a tab,
 * U+0020-U+007E and U+0080-U+00FF). The rule of the option and of
 * `CONNECTED_VEHICLE_USER_AGENT`.
 */
export const userAgentIssue = (value: unknown): string | undefined =>
  typeof value !== "string" || value.trim().length === 0 ? "Expected a non-empty string" : headerValueIssue(value)

/** The `User-Agent` option: `fallback` when it is `undefined`, else it must pass {@link userAgentIssue} (an `InvalidArgument` naming it is thrown). */
export const userAgent = (value: string | undefined, fallback: string): string => {
  if (value === undefined) return fallback
  const issue = userAgentIssue(value)
  if (issue !== undefined) throw new InvalidArgument({ field: "userAgent", message: `userAgent: ${issue}` })
  return value
}

/** The log level option: `undefined`, or one of Effect's `LogLevel` values (an `InvalidArgument` naming it is thrown). */
export const logLevel = (value: LogLevel.LogLevel | undefined): LogLevel.LogLevel | undefined => {
  if (value === undefined || LogLevel.values.includes(value)) return value
  throw new InvalidArgument({ field: "logLevel", message: `logLevel: Expected one of ${LogLevel.values.join(", ")}` })
}


/**
 * Why `u` cannot be a root: an absolute `http:` or `https:` URL without a
 * user name, a password, a query or a fragment (every path is appended to
 * it: after a `?` or a `#` it would be sent as part of the query or not at
 * all); `undefined` when it can. The URL itself is never quoted (it might
 * hold credentials).
 */
export const rootIssue = (u: unknown): string | undefined => {
  if (typeof u !== "string" || !URL.canParse(u)) return "Expected an absolute http(s) URL"
  const url = new URL(u)
  if (url.protocol !== "http:" && url.protocol !== "https:") return `Expected an http: or https: URL, not ${url.protocol}`
  if (url.username !== "" || url.password !== "") return "Expected a URL without user name or password"
  // `new URL("http://h/api?").search` is "": the text decides
  if (u.includes("?") || u.includes("#")) return "Expected a URL without a query or fragment"
  return undefined
}

const rootNames = ["base", "management", "compatibility", "authorization", "legacy"] as const

/** The roots, each checked ({@link rootIssue}), else an `InvalidArgument` naming `roots.<name>` is thrown. */
export const roots = <R extends Readonly<Record<(typeof rootNames)[number], string>>>(given: R): R => {
  if (typeof given !== "object" || given === null) throw new InvalidArgument({ field: "roots", message: "roots: Expected the five roots" })
  for (const name of rootNames) {
    const issue = rootIssue(given[name])
    if (issue !== undefined) throw new InvalidArgument({ field: `roots.${name}`, message: `roots.${name}: ${issue}` })
  }
  return given
}
