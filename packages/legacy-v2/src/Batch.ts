/**
 * Typed results of the legacy batch endpoint (`POST /v2.0/vehicles/{id}/batch`).
 *
 * The caller names the read endpoints it wants ({@link LegacyPath}); the
 * result has one entry per requested path, typed by that path (the
 * `/odometer` entry holds an `Odometer`, and so on). Each entry is either its
 * decoded {@link Reading} or its own `ConnectedVehicleError`, built from the
 * entry's own `code`, body envelope and headers (an `InvalidResponse` reason
 * when the response has no entry for it): one failing entry never fails the
 * others.
 *
 * Each requested path counts against the per-vehicle request limit of the
 * service (section 8), exactly as if it had been requested on its own.
 *
 * The result also carries the `deprecation` headers of the batch response
 * (and each entry's reading those of its entry, else the batch's).
 *
 * @since 0.1.0
 */
import { Option, Result, Schema } from "effect"
import { Headers } from "effect/http"
import type { BatchItem, BatchResponse, LegacyBody, LegacyPath, UnitSystem } from "@connected-vehicle/schema/Legacy"
import { LegacyEndpoints } from "@connected-vehicle/schema/Legacy"
import { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
import { fromEnvelope, fromStatus } from "@connected-vehicle/schema/ServiceReason"
import * as RetryAfter from "@connected-vehicle/transport/RetryAfter"
import { requestIdOf } from "@connected-vehicle/transport/TransportConfig"
import { ConnectedVehicleError, InvalidResponse, MalformedBody } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { Deprecation } from "./Deprecation.ts"
import { toReading } from "./internal/headers.ts"
import type { Reading } from "./Reading.ts"

/**
 * The error of one batch entry: a `ConnectedVehicleError` whose reason is
 * the one of its envelope, else the one of its status (a 404 is `NotFound`,
 * a 502 `Upstream`...: `fromStatus` of `@connected-vehicle/schema/ServiceReason`;
 * `MalformedBody` for a 4xx the service gives no meaning), or
 * `InvalidResponse`: a success body that does not match its path's schema,
 * or no entry at all for the path (`POST .../batch`, the batch's status).
 *
 * @example
 * ```ts
 * import type { EntryError } from "@connected-vehicle/legacy-v2/Batch"
 *
 * const isInvalid = (error: EntryError): boolean => error.reason._tag === "InvalidResponse"
 * ```
 * @deprecated v2.0 is deprecated as of 2026-12-01: use `Migration.ReadError` of `@connected-vehicle/v3`.
 * @since 0.1.0
 * @category errors
 */
export type EntryError = ConnectedVehicleError

/**
 * One entry: the decoded reading of path `P`, or its own error.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import type { Entry } from "@connected-vehicle/legacy-v2/Batch"
 *
 * const vin = (entry: Entry<"/vin">) => Result.isSuccess(entry) ? entry.success.value.vin : undefined
 * ```
 * @deprecated v2.0 is deprecated as of 2026-12-01: use one `Migration` read per path of `@connected-vehicle/v3`.
 * @since 0.1.0
 * @category models
 */
export type Entry<P extends LegacyPath> = Result.Result<Reading<LegacyBody<P>>, EntryError>

/**
 * The result of a batch: one {@link Entry} per requested path, keyed by path.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import type { BatchResult } from "@connected-vehicle/legacy-v2/Batch"
 *
 * const distance = (r: BatchResult<"/odometer" | "/vin">) =>
 *   Result.isSuccess(r["/odometer"]) ? r["/odometer"].success.value.distance : undefined
 * ```
 * @deprecated v2.0 is deprecated as of 2026-12-01: use one `Migration` read per path (or `Signals.list`) of `@connected-vehicle/v3`.
 * @since 0.1.0
 * @category models
 */
export type BatchResult<P extends LegacyPath> =
  & { readonly [K in P]: Entry<K> }
  & {
    /** The deprecation headers of the batch response, when it sent any. */
    readonly deprecation?: Deprecation
  }

/**
 * Context of a batch response needed to build its entries.
 *
 * @example
 * ```ts
 * import type { DecodeContext } from "@connected-vehicle/legacy-v2/Batch"
 *
 * const context: DecodeContext = {
 *   vehicleUrl: "http://127.0.0.1:8080/v2.0/vehicles/veh_1",
 *   unitSystem: "metric",
 *   requestIdHeader: ["sc-request-id", "x-request-id"],
 *   now: Date.now(),
 *   response: { status: 200, requestId: "req_1" }
 * }
 * ```
 * @deprecated v2.0 is deprecated as of 2026-12-01: v3 has no batch (see `Migration` of `@connected-vehicle/v3`).
 * @since 0.1.0
 * @category models
 */
export interface DecodeContext {
  /** `{legacy_url}/v2.0/vehicles/{id}`, used in the entries' errors. */
  readonly vehicleUrl: string
  readonly unitSystem: UnitSystem
  /**
   * The header of an entry's request id, or several in order of preference
   * (the transport's `requestIdHeaders`: `sc-request-id`, else `x-request-id`).
   */
  readonly requestIdHeader: string | ReadonlyArray<string>
  /** Current time in milliseconds, for an HTTP-date `retry-after` (when no `Date` tells the server's time). */
  readonly now: number
  /**
   * The `Date` header of the batch response: an entry's HTTP-date
   * `retry-after` is measured from it (the server's clock), unless the entry
   * has a valid `date` of its own (an HTTP date); without a valid one, from {@link DecodeContext.now}.
   */
  readonly date?: string | undefined
  /** The deprecation headers of the batch response. */
  readonly deprecation?: Deprecation | undefined
  /** The status (default 200) and request id of the batch response, for the error of a missing entry. */
  readonly response?: { readonly status: number; readonly requestId?: string | undefined } | undefined
}

/**
 * Splits a batch response into one typed entry per requested path.
 *
 * @example
 * ```ts
 * import { decode } from "@connected-vehicle/legacy-v2/Batch"
 *
 * const result = decode(
 *   { responses: [{ path: "/odometer", code: 200, body: { distance: 12.5 }, headers: { "sc-unit-system": "metric" } }] },
 *   ["/odometer", "/vin"],
 *   { vehicleUrl: "http://127.0.0.1:8080/v2.0/vehicles/veh_1", unitSystem: "metric", requestIdHeader: "x-request-id", now: Date.now() }
 * )
 * result["/vin"]._tag // "Failure": a ConnectedVehicleError, reason InvalidResponse (no entry for /vin)
 * ```
 * @deprecated v2.0 is deprecated as of 2026-12-01: v3 has no batch (see `Migration` of `@connected-vehicle/v3`).
 * @since 0.1.0
 * @category decoding
 */
export const decode = <P extends LegacyPath>(
  response: BatchResponse,
  paths: ReadonlyArray<P>,
  context: DecodeContext
): BatchResult<P> => {
  const out: Partial<Record<LegacyPath, Entry<LegacyPath>>> & { deprecation?: Deprecation } = {}
  for (const path of paths) {
    const item = response.responses.find((i) => i.path === path)
    out[path] = item === undefined ? Result.fail(missing(path, context)) : decodeItem(path, item, context)
  }
  if (context.deprecation !== undefined) out.deprecation = context.deprecation
  return out as BatchResult<P>
}

const decodeEnvelope = Schema.decodeUnknownOption(ErrorEnvelope)

const failed = (reason: ConnectedVehicleError["reason"]) => new ConnectedVehicleError({ reason })

/** A requested path without an entry: the batch response is not what the endpoint answers. */
const missing = (path: LegacyPath, context: DecodeContext) => {
  const requestId = context.response?.requestId
  return failed(
    new InvalidResponse({
      method: "POST",
      url: `${context.vehicleUrl}/batch`,
      status: context.response?.status ?? 200,
      ...(requestId === undefined ? {} : { requestId }),
      description: `the batch response has no entry for ${path}`
    })
  )
}

/** An entry's headers with their names in lowercase (a response's own are matched whatever their case). */
const lowerCased = (headers: Readonly<Record<string, string | undefined>>): Readonly<Record<string, string | undefined>> => {
  const out: Record<string, string | undefined> = {}
  for (const name of Object.keys(headers)) out[name.toLowerCase()] = headers[name]
  return out
}

/** An entry's own `date` when it is an HTTP date, else the batch response's. */
const dateOf = (entry: string | undefined, batch: string | undefined): string | undefined =>
  entry !== undefined && Result.isSuccess(Headers.parseHttpDate(entry)) ? entry : batch

const decodeItem = <P extends LegacyPath>(path: P, item: BatchItem, context: DecodeContext): Entry<P> => {
  const headers = lowerCased(item.headers as Readonly<Record<string, string | undefined>>)
  const requestId = requestIdOf(headers, (typeof context.requestIdHeader === "string" ? [context.requestIdHeader] : context.requestIdHeader).map((name) => name.toLowerCase()))
  const http = {
    method: "GET",
    url: context.vehicleUrl + path,
    status: item.code,
    ...(requestId === undefined ? {} : { requestId })
  }
  if (item.code < 200 || item.code >= 300) {
    const envelope = decodeEnvelope(item.body)
    // as for a response of its own: repeated values give the longest wait, a date measured from the server's `Date`
    const retryAfter = RetryAfter.fromHeaders({ "retry-after": headers["retry-after"], date: dateOf(headers["date"], context.date) }, context.now)
    const ctx = { ...http, retryAfter }
    if (Option.isSome(envelope)) return Result.fail(failed(fromEnvelope(envelope.value, ctx)))
    // not the envelope: the status decides, as for a response of its own
    const note = "the entry body is not the error envelope"
    return Result.fail(failed(fromStatus(ctx, note) ?? new MalformedBody({ ...http, description: note })))
  }
  const schema = LegacyEndpoints[path].schema as Schema.Codec<LegacyBody<P>, unknown>
  const value = Schema.decodeUnknownResult(schema)(item.body)
  if (Result.isFailure(value)) {
    return Result.fail(failed(new InvalidResponse({ ...http, description: value.failure.message })))
  }
  return toReading(value.success, headers, {
    requested: context.unitSystem,
    requestIdHeader: context.requestIdHeader,
    deprecation: context.deprecation,
    ...http
  })
}

