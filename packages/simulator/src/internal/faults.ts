/**
 * Injected faults: the fault header's grammar, and what each fault does to
 * the answer (a status, a stalled or truncated body, a dropped connection).
 *
 * @internal
 */
import { Duration, Effect, Stream } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { HttpServerResponse } from "effect/http"
import type { HttpServerRequest } from "effect/http"
import type { ParsedFault } from "../App.ts"
import { envelope } from "../Env.ts"
import type { Fault } from "../State.ts"
import { DROP_MARKER } from "./headers.ts"
import { quoted } from "./oauthText.ts"
import { duration, refuseRenamed } from "./options.ts"
import { envelopeResponse, isOAuthPath, jsonHeaders, oauthResponse } from "./responses.ts"

const httpDate = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/

/** A `status=N` fault, with its `retry-after` option (taken out of `options`). */
const statusFault = (status: string, options: Map<string, string>): Fault | string => {
  const n = Number(status)
  if (!Number.isInteger(n) || n < 400 || n > 599) return `status must be 400..599, got ${quoted(status)}`
  const retryAfter = options.get("retry-after")
  options.delete("retry-after")
  if (retryAfter === undefined) return { _tag: "Status", status: n }
  if (!/^\d{1,9}$/.test(retryAfter) && !(httpDate.test(retryAfter) && !Number.isNaN(Date.parse(retryAfter)))) {
    return `retry-after must be delta-seconds or an HTTP-date, got ${quoted(retryAfter)}`
  }
  return { _tag: "Status", status: n, retryAfter }
}

/** The fault a header's head names (`key` and `arg` are its two sides of `=`). */
const namedFault = (head: string, key: string, arg: string | undefined): Fault | string => {
  switch (key) {
    case "delay": {
      const millis = Number(arg)
      if (arg === undefined || !Number.isFinite(millis) || millis < 0 || millis > 600_000) {
        return "delay must be 0..600000 milliseconds"
      }
      return { _tag: "Delay", delay: Duration.millis(millis) }
    }
    case "stall":
    case "stall-body":
    case "stallbody":
      return { _tag: "StallBody" }
    case "drop":
      return { _tag: "Drop" }
    case "malformed":
    case "malformed-json":
    case "malformedjson":
      return { _tag: "MalformedJson" }
    default:
      return `unknown fault ${quoted(head)}`
  }
}

/** The fields of a fault renamed to `Duration` inputs. */
const RENAMED: Readonly<Record<Fault["_tag"], ReadonlyArray<readonly [string, string]>>> = {
  Delay: [["millis", "delay"]],
  Status: [],
  StallBody: [],
  Drop: [],
  MalformedJson: []
}

/**
 * The faults of `Simulator.injectFaults`, a `Delay`'s `delay` decoded; a
 * renamed field (a `Delay`'s `millis`) or a `delay` that is not a
 * non-negative, finite `Duration` input throws an `InvalidArgument` naming it.
 */
export const checkedFaults = (faults: ReadonlyArray<Fault>): ReadonlyArray<Fault> =>
  faults.map((fault, i) => {
    refuseRenamed(fault as unknown as Readonly<Record<string, unknown>>, RENAMED[fault._tag] ?? [], `faults[${i}].`)
    if (fault._tag !== "Delay") return fault
    const field = `faults[${i}].delay`
    if (fault.delay === undefined) throw new InvalidArgument({ field, message: `${field}: Expected a non-negative, finite duration` })
    return { _tag: "Delay", delay: duration(field, fault.delay, Duration.zero) }
  })

/**
 * A fault in the header syntax parsed, or why it is not one. A value the
 * request sent is shown as an OAuth `error_description` shows one
 * (`oauthText.quoted`: its first 40 characters), so a long value is never
 * echoed whole.
 *
 * @internal
 */
export const parseFaultHeader = (value: string): ParsedFault | string => {
  const parts = value.split(/;|,(?! \d)/).map((p) => p.trim())
  if (parts.every((p) => p === "")) return "empty fault"
  const empty = parts.findIndex((p) => p === "")
  if (empty !== -1) {
    return `segment ${empty + 1} is empty: a fault is its name, then key=value options, separated by ";" (e.g. status=503;retry-after=2)`
  }
  const [head, ...rest] = parts as [string, ...Array<string>]
  const options = new Map<string, string>()
  for (const part of rest) {
    const eq = part.indexOf("=")
    if (eq === -1) return `expected key=value, got ${quoted(part)}`
    options.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim())
  }
  let times: number | undefined
  const timesText = options.get("times")
  if (timesText !== undefined) {
    times = Number(timesText)
    if (!/^\d+$/.test(timesText) || times < 1 || times > 1_000_000) return "times must be an integer 1..1000000"
    options.delete("times")
  }
  const [key, arg] = head.split("=").map((s) => s.trim().toLowerCase()) as [string, string | undefined]
  const status = key === "status" ? arg : /^\d+$/.test(key) ? key : undefined
  const fault = status !== undefined ? statusFault(status, options) : namedFault(head, key, arg)
  if (typeof fault === "string") return fault
  const [unknown] = options.keys()
  if (unknown !== undefined) return `unknown option ${quoted(unknown)}`
  return { fault, times }
}

export const faultStatusResponse = (fault: Extract<Fault, { _tag: "Status" }>, path: string) => {
  const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter }
  const detail = fault.status === 429
    ? "Too many requests; retry later"
    : `Injected failure with status ${fault.status}`
  if (isOAuthPath(path)) {
    const error = fault.status === 429 || fault.status === 503
      ? "temporarily_unavailable"
      : fault.status >= 500
      ? "server_error"
      : "invalid_request"
    return oauthResponse(fault.status, error, detail, headers)
  }
  return envelopeResponse(
    fault.status,
    envelope(fault.status, detail, fault.status === 429 || fault.status >= 500 ? { resolution: "RETRY_LATER" } : undefined),
    headers
  )
}

export const stalled = (status: number) =>
  HttpServerResponse.stream(
    Stream.concat(Stream.make(new TextEncoder().encode("{\"data\":[")), Stream.never),
    { status, headers: jsonHeaders }
  )

/** Truncates a JSON body in the middle (at least one byte short, never valid), keeping the status. */
export const truncate = (response: HttpServerResponse.HttpServerResponse) => {
  const body = response.body
  const text = body._tag === "Uint8Array" ? new TextDecoder().decode(body.body) : "{\"data\":[{\"id\":\"x\"}]}"
  const cut = text.slice(0, Math.max(1, Math.floor(text.length / 2)))
  return HttpServerResponse.text(cut.endsWith("}") ? cut.slice(0, -1) : cut, {
    status: response.status,
    headers: response.headers,
    contentType: "application/json"
  })
}

export const dropConnection = (request: HttpServerRequest.HttpServerRequest) => {
  const source = request.source as { readonly socket?: { destroy(): void } }
  if (source !== null && typeof source === "object" && source.socket !== undefined) {
    source.socket.destroy()
    return Effect.interrupt
  }
  // In-memory client: it turns this marker into a transport failure.
  return Effect.succeed(HttpServerResponse.empty({ status: 599, headers: { [DROP_MARKER]: "1" } }))
}
