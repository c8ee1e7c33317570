/**
 * The transport's configuration as `TransportConfig.config` reads it: the
 * variables under the `CONNECTED_VEHICLE` prefix (`Config.nested`), by their
 * names below it.
 *
 * @internal
 */
import { Config, Option, Schema, SchemaTransformation } from "effect"
import type { LogLevel } from "effect"
import * as DurationVariable from "../DurationVariable.ts"
import { Keyword } from "../Setting.ts"
import type { Options } from "../TransportConfig.ts"
import { isHeaderName, rootIssue, userAgentIssue } from "./options.ts"

/** @internal */
export const prefix = "CONNECTED_VEHICLE"

/** The SDK's log settings and the Effect log level of each (`off` is `None`). @internal */
export const logLevels = { debug: "Debug", info: "Info", warn: "Warn", error: "Error", off: "None" } as const

type Setting = keyof typeof logLevels

/** `debug`, `info`, `warn`, `error` or `off` (any case). */
const LogSetting = Keyword(Object.keys(logLevels) as Array<Setting>)

/** `LOG` as Effect's log level. @internal */
export const logLevel: Config.Config<LogLevel.LogLevel> = Config.schema(LogSetting, "LOG").pipe(
  Config.map((setting): LogLevel.LogLevel => logLevels[setting])
)

/** A root (or the origin): `rootIssue` decides (its message never quotes the URL). */
const RootUrl = Schema.String.check(Schema.makeFilter((s: string) => rootIssue(s) ?? true))

/** The root under `name` when it is set (an invalid one fails), else `ORIGIN` followed by `suffix`. */
const root = (name: string, suffix: string) =>
  Config.option(Config.String(name)).pipe(Config.flatMap((given) =>
    Option.isSome(given)
      ? Config.schema(RootUrl, name)
      : Config.schema(RootUrl, "ORIGIN").pipe(Config.map((o) => o.replace(/\/+$/, "") + suffix))
  ))

/** The `User-Agent`: `userAgentIssue` decides. */
const UserAgent = Schema.String.check(Schema.makeFilter((s: string) => userAgentIssue(s) ?? true))

/** A header name (an RFC 9110 token). */
const HeaderName = Schema.String.check(Schema.makeFilter((s: string) => isHeaderName(s) || "Expected a header name (an RFC 9110 token)"))

/** Comma-separated header names, at least one. */
const HeaderNames = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Array(HeaderName).check(Schema.isMinLength(1, { expected: "at least one header name" })),
    SchemaTransformation.transform<ReadonlyArray<string>, string>({
      decode: (s) => s.split(",").map((name) => name.trim()).filter((name) => name.length > 0),
      encode: (names) => names.join(",")
    })
  )
)

const get = <A>(config: Config.Config<A>) => Config.map(Config.option(config), Option.getOrUndefined)
const duration = (name: string, positive: boolean) => DurationVariable.make(name, { positive })

/** The durations that have a deprecated `_MS` name (milliseconds). */
const durationNames = ["TIMEOUT", "RETRY_INITIAL_DELAY", "RETRY_MAX_DELAY", "RETRY_MAX_ELAPSED", "MAX_RATE_LIMIT_WAIT"]

/** @internal */
export const config: Config.Config<Options> = Config.all({
  roots: Config.all({
    base: root("BASE_URL", "/v3"),
    management: root("MANAGEMENT_URL", "/v3"),
    compatibility: root("COMPAT_URL", "/v3"),
    authorization: root("AUTH_URL", ""),
    legacy: root("LEGACY_URL", "")
  }),
  userAgent: get(Config.schema(UserAgent, "USER_AGENT")),
  timeout: duration("TIMEOUT", true),
  retry: Config.all({
    maxAttempts: get(Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), "MAX_ATTEMPTS")),
    initialDelay: duration("RETRY_INITIAL_DELAY", false),
    factor: get(Config.schema(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(1)), "RETRY_FACTOR")),
    maxDelay: duration("RETRY_MAX_DELAY", false),
    maxElapsed: duration("RETRY_MAX_ELAPSED", true),
    retryNonIdempotent: get(Config.Boolean("RETRY_NON_IDEMPOTENT"))
  }),
  rateLimit: Config.all({
    wait: get(Config.Boolean("WAIT_ON_RATE_LIMIT")),
    maxWait: duration("MAX_RATE_LIMIT_WAIT", false)
  }),
  requestIdHeader: get(Config.schema(HeaderNames, "REQUEST_ID_HEADER")),
  httpSpans: get(Config.Boolean("HTTP_SPANS")),
  logLevel: get(logLevel)
}).pipe(DurationVariable.withWarning(durationNames, { prefix }), Config.nested(prefix))
