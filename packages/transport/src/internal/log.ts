/**
 * @internal
 */
import { Effect, LogLevel, References } from "effect"
import type { Fiber } from "effect"

/**
 * How the SDK emits a message.
 *
 * @internal
 */
export interface SdkLog {
  readonly log: (
    level: LogLevel.Severity,
    message: string,
    annotations: Readonly<Record<string, unknown>>
  ) => Effect.Effect<void>
}

/**
 * The SDK's logging at `configured` (`TransportConfig.logLevel`): a
 * configured level wins over the fiber's `MinimumLogLevel` (its messages are
 * emitted under that level, to the application's loggers); without one, the
 * fiber's level decides, as for any log line.
 *
 * @internal
 */
export const make = (configured: LogLevel.LogLevel | undefined): SdkLog => ({
  log: configured === undefined
    ? (level, message, annotations) => Effect.annotateLogs(Effect.logWithLevel(level)(message), annotations)
    : (level, message, annotations) =>
      Effect.provideService(
        Effect.annotateLogs(Effect.logWithLevel(level)(message), annotations),
        References.MinimumLogLevel,
        configured
      )
})

// names of query parameters whose value may be a credential
const secretName = /token|secret|password|passwd|verifier|signature|credential|assertion|api[-_]?key|^(?:code|key|sig|state|auth|authorization|session)$/i

/**
 * A URL with the value of any query parameter named like a credential
 * (`access_token`, `client_secret`, `code`, `state`, `api_key`, ...)
 * replaced with `<redacted>`: every URL the transport shows, in log lines
 * and errors, goes through it (`http.ts`'s `withoutCredentials`).
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
