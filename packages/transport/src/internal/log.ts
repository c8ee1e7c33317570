/**
 * @internal
 */
import { Effect, LogLevel, References } from "effect"
import type { Fiber } from "effect"

/**
 * What the SDK logs, decided once (when a client is built): the level, and
 * how a message is emitted.
 *
 * @internal
 */
export interface SdkLog {
  /** Whether a message of `level` is logged: check it before building the message. */
  readonly enabled: (level: LogLevel.Severity) => boolean
  /** Emits a message (call it only when `enabled`). */
  readonly log: (
    level: LogLevel.Severity,
    message: string,
    annotations: Readonly<Record<string, unknown>>
  ) => Effect.Effect<void>
}

/**
 * The SDK's logging at `configured` (`TransportConfig.logLevel`), else at
 * `minimum` (the application's `MinimumLogLevel` when the client is built).
 * A configured level wins over the application's: its messages are emitted
 * under that level, to the application's loggers.
 *
 * @internal
 */
export const make = (configured: LogLevel.LogLevel | undefined, minimum: LogLevel.LogLevel): SdkLog => {
  const threshold = configured ?? minimum
  const enabled = (level: LogLevel.Severity): boolean =>
    threshold !== "None" && LogLevel.isGreaterThanOrEqualTo(level, threshold)
  return {
    enabled,
    log: configured === undefined
      ? (level, message, annotations) => Effect.annotateLogs(Effect.logWithLevel(level)(message), annotations)
      : (level, message, annotations) =>
        Effect.provideService(
          Effect.annotateLogs(Effect.logWithLevel(level)(message), annotations),
          References.MinimumLogLevel,
          configured
        )
  }
}

/**
 * The current fiber's SDK logging (`configured`, else its `MinimumLogLevel`).
 *
 * @internal
 */
export const current = (configured: LogLevel.LogLevel | undefined): Effect.Effect<SdkLog> =>
  Effect.map(Effect.service(References.MinimumLogLevel), (minimum) => make(configured, minimum))

// names of query parameters whose value may be a credential
const secretName = /token|secret|password|passwd|verifier|signature|credential|assertion|api[-_]?key|^(?:code|key|sig|state|auth|authorization|session)$/i

/**
 * A URL for a log line: no user info (already removed from the URLs the
 * transport keeps) and the value of any query parameter named like a
 * credential (`access_token`, `client_secret`, `code`, `state`, `api_key`,
 * ...) replaced with `<redacted>`. The SDK sends no secret in a query
 * string; this also covers a URL mapped by a `transformClient` hook.
 *
 * @internal
 */
export const redactUrl = (url: string): string => {
  const query = url.indexOf("?")
  if (query === -1) return url
  const hash = url.indexOf("#", query)
  const end = hash === -1 ? url.length : hash
  const redacted = url.slice(query + 1, end).split("&").map((pair) => {
    const eq = pair.indexOf("=")
    const name = eq === -1 ? pair : pair.slice(0, eq)
    let decoded = name
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, " "))
    } catch {
      // keep the raw name
    }
    return eq !== -1 && secretName.test(decoded) ? `${name}=<redacted>` : pair
  })
  return `${url.slice(0, query)}?${redacted.join("&")}${hash === -1 ? "" : url.slice(hash)}`
}

/**
 * Whether a line at `level` is logged in this fiber: the configured level
 * (`TransportConfig.logLevel`), else the fiber's `MinimumLogLevel`, read at
 * run time so that a level provided around a call applies to it.
 *
 * @internal
 */
export const enabledIn = (fiber: Fiber.Fiber<unknown, unknown>, configured: LogLevel.LogLevel | undefined, level: LogLevel.Severity): boolean => {
  const threshold = configured ?? fiber.getRef(References.MinimumLogLevel)
  return threshold !== "None" && LogLevel.isGreaterThanOrEqualTo(level, threshold)
}
