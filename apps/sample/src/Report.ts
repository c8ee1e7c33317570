/**
 * How failures are shown: the error's tag (for a failed call, its reason's:
 * `RateLimit`, `NotFound`, `Timeout`...) and the fields that help (status,
 * type, code, detail, request id, whether it is retryable...), never a token
 * or a secret. Every error of the SDK carries only such fields, so the report
 * reads them by name.
 *
 * @since 0.1.0
 */
import { Duration, Runtime } from "effect"
import { isConnectedVehicleError, reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"

const fields = [
  "status",
  "type",
  "code",
  "title",
  "detail",
  "resolution",
  "suggestedUserMessage",
  "requestId",
  "method",
  "url",
  "path",
  "error",
  "errorDescription",
  "description",
  "timeout",
  "timeoutMillis",
  "retryAfter",
  "field",
  "reason"
] as const

/**
 * The reportable content of an error: its tag, its message and the known
 * fields it has.
 *
 * @example
 * ```ts
 * import { describe } from "@connected-vehicle/sample/Report"
 *
 * describe(new Error("boom")) // { tag: "Error", message: "boom" }
 * ```
 * @since 0.1.0
 */
export const describe = (error: unknown): Readonly<Record<string, string | number>> & { readonly tag: string } => {
  if (typeof error !== "object" || error === null) return { tag: "Error", message: String(error) }
  const record = reasonOf(error) as Record<string, unknown>
  const tag = typeof record["_tag"] === "string" ? record["_tag"] : (error as Error).name ?? "Error"
  const out: Record<string, string | number> = { tag }
  for (const key of fields) {
    const value = record[key]
    if (typeof value === "string" || typeof value === "number") out[key] = value
    else if (Duration.isDuration(value)) out[key] = Duration.format(value)
  }
  if (isConnectedVehicleError(error)) out["retryable"] = error.isRetryable ? "yes" : "no"
  const message = (error as Error).message
  if (typeof message === "string" && message !== "" && out["detail"] === undefined && out["reason"] === undefined) {
    out["message"] = message
  }
  return out as Record<string, string | number> & { readonly tag: string }
}

/**
 * The error as text for stderr.
 *
 * @example
 * ```ts
 * import { render } from "@connected-vehicle/sample/Report"
 *
 * console.error(render(new Error("boom")))
 * ```
 * @since 0.1.0
 */
export const render = (error: unknown): string => {
  const { tag, ...rest } = describe(error)
  const entries = Object.entries(rest)
  const width = Math.max(0, ...entries.map(([key]) => key.length))
  return [`Error: ${tag}`, ...entries.map(([key, value]) => `  ${(key + ":").padEnd(width + 1)} ${value}`)].join("\n")
}

/**
 * The exit code of a failure: 2 for a bad argument (rejected before any
 * request), 1 otherwise.
 *
 * @example
 * ```ts
 * import { exitCodeOf } from "@connected-vehicle/sample/Report"
 *
 * exitCodeOf({ _tag: "InvalidArgument" }) // 2
 * ```
 * @since 0.1.0
 */
export const exitCodeOf = (error: unknown): number => {
  const { _tag: tag, usage } = (reasonOf(error) ?? {}) as { readonly _tag?: unknown; readonly usage?: unknown }
  return tag === "InvalidArgument" || tag === "InvalidRequest" || usage === true ? 2 : 1
}

/**
 * The failure a command ends with once its error was reported: the process
 * exits with `exitCode` and nothing more is printed.
 *
 * @example
 * ```ts
 * import { Reported } from "@connected-vehicle/sample/Report"
 *
 * new Reported(1)
 * ```
 * @since 0.1.0
 */
export class Reported {
  readonly _tag = "Reported"
  readonly [Runtime.errorExitCode]: number
  readonly [Runtime.errorReported] = false
  constructor(exitCode: number) {
    this[Runtime.errorExitCode] = exitCode
  }
}
