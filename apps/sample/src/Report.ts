/**
 * How failures are shown: the error's tag (for a failed call, its reason's:
 * `RateLimit`, `NotFound`, `Timeout`...; a `FleetError` with its reason's tag
 * as `reason`: `DatabaseUnavailable`...) and the fields that help (status,
 * type, code, detail, request id, whether it is retryable...), never a token
 * or a secret. Every error of the SDK carries only such fields, so the report
 * reads them by name.
 *
 * @since 0.1.0
 */
import { Duration, Runtime } from "effect"
import { isFleetError } from "@connected-vehicle/fleet/FleetError"
import { isConnectedVehicleError, reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import { printable } from "./Printable.ts"

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
  "retryAfter",
  "field",
  "reason"
] as const

/**
 * The reportable content of an error: its tag, its message, the known
 * fields it has and, as `cause`, the innermost message of its cause chain
 * (see {@link causeOf}) unless a field already says it.
 *
 * @example
 * ```ts
 * import { describe } from "@connected-vehicle/sample/Report"
 *
 * describe(new Error("boom")) // { tag: "Error", message: "boom" }
 * ```
 * @since 0.1.0
 * @category rendering
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
  if (isFleetError(error)) out["reason"] = error.reason._tag
  if (isConnectedVehicleError(error) || isFleetError(error)) out["retryable"] = error.isRetryable ? "yes" : "no"
  const message = (error as Error).message
  if (typeof message === "string" && message !== "" && out["detail"] === undefined && out["reason"] === undefined) {
    out["message"] = message
  }
  const cause = causeOf(error)
  if (cause !== undefined && !Object.values(out).some((value) => typeof value === "string" && value.includes(cause))) {
    out["cause"] = cause
  }
  return out as Record<string, string | number> & { readonly tag: string }
}

/** The message of one link of a cause chain (an `AggregateError`'s are those of its errors). */
const messageOf = (error: object): string | undefined => {
  const { message, errors } = error as { readonly message?: unknown; readonly errors?: unknown }
  if (typeof message === "string" && message !== "") return message
  if (!Array.isArray(errors)) return undefined
  const messages = errors.flatMap((e) => typeof e === "object" && e !== null ? [messageOf(e)].filter((m) => m !== undefined) : [])
  return messages.length === 0 ? undefined : [...new Set(messages)].join("; ")
}

/**
 * The innermost message of an error's `cause` chain (at most 16 links deep):
 * what went wrong underneath, e.g. `connect ECONNREFUSED 127.0.0.1:4999`
 * under a `TransportFailure`. Undefined when the error has no cause with a
 * message.
 *
 * @example
 * ```ts
 * import { causeOf } from "@connected-vehicle/sample/Report"
 *
 * causeOf(new Error("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:4999") }))
 * // "connect ECONNREFUSED 127.0.0.1:4999"
 * ```
 * @category rendering
 * @since 0.2.0
 */
export const causeOf = (error: unknown): string | undefined => {
  let found: string | undefined
  const seen = new Set<unknown>([error])
  let current = typeof error === "object" && error !== null ? (error as { readonly cause?: unknown }).cause : undefined
  for (let depth = 0; depth < 16 && typeof current === "object" && current !== null && !seen.has(current); depth++) {
    seen.add(current)
    found = messageOf(current) ?? found
    const { cause, errors } = current as { readonly cause?: unknown; readonly errors?: unknown }
    current = cause ?? (Array.isArray(errors) && errors.length === 1 ? errors[0] : undefined)
  }
  return found
}

/**
 * The error as text for stderr: one line per field, each value (the
 * service's code, title, detail, message for the user, a cause...) shown
 * through `Printable.printable`, so a control character in it is an escape
 * (`\u001b`), never a color, a cursor move or a fake line.
 *
 * @example
 * ```ts
 * import { render } from "@connected-vehicle/sample/Report"
 *
 * console.error(render(new Error("boom")))
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const render = (error: unknown): string => {
  const { tag, ...rest } = describe(error)
  const entries = Object.entries(rest)
  const width = Math.max(0, ...entries.map(([key]) => key.length))
  return [
    `Error: ${printable(tag)}`,
    ...entries.map(([key, value]) => `  ${(key + ":").padEnd(width + 1)} ${printable(String(value))}`)
  ].join("\n")
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
 * @category utils
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
 * @category errors
 */
export class Reported {
  readonly _tag = "Reported"
  readonly [Runtime.errorExitCode]: number
  readonly [Runtime.errorReported] = false
  constructor(exitCode: number) {
    this[Runtime.errorExitCode] = exitCode
  }
}
