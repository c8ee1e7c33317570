/**
 * `sample migrate check <vehicle>`: each legacy v2.0 read of a vehicle next
 * to its v3 equivalent (`Migration` of `@connected-vehicle/v3`), and whether
 * they agree. v2.0 is deprecated as of December 1, 2026 (spec section 9, which
 * gives no removal date; `docs/migrating-to-v3.md`).
 *
 * @since 0.2.0
 */
import { Effect, Result } from "effect"
import type { LegacyPath, UnitSystem } from "@connected-vehicle/schema/Legacy"
import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
import * as Migration from "@connected-vehicle/v3/Migration"
import type { Connections } from "@connected-vehicle/v3/Connections"
import type { Signals } from "@connected-vehicle/v3/Signals"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import { SampleError } from "./SampleError.ts"
import { printable } from "./Printable.ts"
import { render as renderTable } from "./Table.ts"

/**
 * A sunset (a removal date, from a response's `Sunset` header: the spec
 * gives none) `sunset` (an ISO date or date-time) told at `now`
 * (milliseconds): "sunsets on <sunset>" before it, "was sunset on <sunset>"
 * from it on (or when `sunset` is no date).
 *
 * @example
 * ```ts
 * import { sunsetPhrase } from "@connected-vehicle/sample/Migrate"
 *
 * sunsetPhrase("2027-06-01", Date.UTC(2026, 10, 27)) // "sunsets on 2027-06-01"
 * sunsetPhrase("2027-06-01", Date.UTC(2027, 6, 1)) // "was sunset on 2027-06-01"
 * ```
 * @since 0.2.0
 * @category utils
 */
export const sunsetPhrase = (sunset: string, now: number): string =>
  now < Date.parse(sunset) ? `sunsets on ${sunset}` : `was sunset on ${sunset}`

/**
 * What a response's deprecation says (ISO dates or date-times, `null` when its
 * header was absent), told at `now` (milliseconds): "is deprecated as of
 * <deprecatedAt>", then "and sunsets on <sunset>" / "and was sunset on
 * <sunset>" when a `Sunset` header named one, else "; no removal date is
 * announced".
 *
 * @example
 * ```ts
 * import { deprecationPhrase } from "@connected-vehicle/sample/Migrate"
 *
 * deprecationPhrase("2026-12-01", null, Date.UTC(2026, 10, 27)) // "is deprecated as of 2026-12-01; no removal date is announced"
 * deprecationPhrase("2026-12-01", "2027-06-01", Date.UTC(2026, 10, 27)) // "is deprecated as of 2026-12-01 and sunsets on 2027-06-01"
 * ```
 * @since 0.2.0
 * @category utils
 */
export const deprecationPhrase = (deprecatedAt: string | null, sunsetAt: string | null, now: number): string =>
  `is deprecated${deprecatedAt === null ? "" : ` as of ${deprecatedAt}`}${
    sunsetAt === null ? "; no removal date is announced" : ` and ${sunsetPhrase(sunsetAt, now)}`
  }`

/**
 * The deprecation notice the legacy commands print on stderr: v2.0 is
 * deprecated as of December 1, 2026 (spec section 9, which gives no removal
 * date; the vehicle list is not deprecated).
 *
 * @example
 * ```ts
 * import { Console } from "effect"
 * import { notice } from "@connected-vehicle/sample/Migrate"
 *
 * const warn = Console.error(notice())
 * ```
 * @since 0.2.0
 * @category utils
 */
export const notice = (): string =>
  "Deprecated: the v2.0 API is deprecated as of 2026-12-01 (spec section 9; no removal date is announced; the vehicle list is not deprecated). Move to v3: docs/migrating-to-v3.md; compare with `sample migrate check <vehicle>`."

/**
 * One side of a check: the value, or the error's tag and message.
 *
 * @example
 * ```ts
 * import type { Outcome } from "@connected-vehicle/sample/Migrate"
 *
 * const failed: Outcome = { ok: false, error: { tag: "PermissionDenied", message: "read_odometer is missing" } }
 * ```
 * @since 0.2.0
 * @category models
 */
export type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: { readonly tag: string; readonly message: string } }

/**
 * One legacy read and its v3 equivalent. `agree` is `null` when there is
 * nothing to compare (no v3 equivalent, or either side failed).
 *
 * @example
 * ```ts
 * import type { Check } from "@connected-vehicle/sample/Migrate"
 *
 * const disagreeing = (checks: ReadonlyArray<Check>) => checks.filter((c) => c.agree === false).map((c) => c.path)
 * ```
 * @since 0.2.0
 * @category models
 */
export interface Check {
  readonly path: LegacyPath
  readonly signal: string | null
  readonly legacy: Outcome
  readonly v3: Outcome | null
  readonly agree: boolean | null
}

/**
 * A read that was not compared, and why: no v3 equivalent, or which side
 * failed with what.
 *
 * @example
 * ```ts
 * import type { NotCompared } from "@connected-vehicle/sample/Migrate"
 *
 * const skipped: NotCompared = { path: "/service/history", reason: "no v3 equivalent" }
 * ```
 * @category models
 * @since 0.2.0
 */
export interface NotCompared {
  readonly path: LegacyPath
  readonly reason: string
}

/**
 * The result of `migrate check`: every check, how many were compared (both
 * sides answered) and agree, and why the others were not compared.
 *
 * @example
 * ```ts
 * import type { Report } from "@connected-vehicle/sample/Migrate"
 *
 * const allAgree = (report: Report) => report.compared > 0 && report.agreeing === report.compared
 * ```
 * @since 0.2.0
 * @category models
 */
export interface Report {
  readonly vehicleId: string
  readonly userId: string
  readonly unitSystem: UnitSystem
  readonly checks: ReadonlyArray<Check>
  readonly compared: number
  readonly agreeing: number
  readonly notCompared: ReadonlyArray<NotCompared>
  /** What to do when every v2.0 read was refused for the signed-in user (else null). */
  readonly hint: string | null
}

const failure = (o: Outcome | null): string | undefined => o === null || o.ok ? undefined : `${o.error.tag}: ${o.error.message}`

/**
 * Why a check was not compared; undefined when it was.
 *
 * @example
 * ```ts
 * import { whyNotCompared } from "@connected-vehicle/sample/Migrate"
 *
 * whyNotCompared({ path: "/service/history", signal: null, legacy: { ok: true, value: [] }, v3: null, agree: null })
 * // "no v3 equivalent"
 * ```
 * @category rendering
 * @since 0.2.0
 */
export const whyNotCompared = (c: Check): string | undefined => {
  if (c.agree !== null) return undefined
  const legacy = failure(c.legacy)
  if (c.v3 === null) return legacy === undefined ? "no v3 equivalent" : `no v3 equivalent; the v2.0 read failed (${legacy})`
  const v3 = failure(c.v3)
  return legacy !== undefined && v3 !== undefined
    ? `both reads failed (v2.0: ${legacy}; v3: ${v3})`
    : legacy !== undefined
    ? `the v2.0 read failed (${legacy})`
    : `the v3 read failed (${v3})`
}

/**
 * The report of the checks: the counts and the reads not compared.
 *
 * @example
 * ```ts
 * import { reportOf } from "@connected-vehicle/sample/Migrate"
 *
 * reportOf({ vehicleId: "veh_1", userId: "usr_1", unitSystem: "metric" }, []).compared // 0
 * ```
 * @category constructors
 * @since 0.2.0
 */
export const reportOf = (
  subject: { readonly vehicleId: string; readonly userId: string; readonly unitSystem: UnitSystem },
  checks: ReadonlyArray<Check>
): Report => ({
  ...subject,
  checks,
  compared: checks.filter((c) => c.agree !== null).length,
  agreeing: checks.filter((c) => c.agree === true).length,
  notCompared: checks.flatMap((c) => {
    const reason = whyNotCompared(c)
    return reason === undefined ? [] : [{ path: c.path, reason }]
  }),
  hint: checks.length > 0 && checks.every((c) => !c.legacy.ok && (c.legacy.error.tag === "PermissionDenied" || c.legacy.error.tag === "Authentication"))
    ? "The v2.0 reads use the signed-in user's token and every one was refused: the vehicle is not that user's (`sample legacy vehicles` lists theirs)."
    : null
})

/**
 * The vehicle id does not name a vehicle of this application: the service
 * refused it (not an id) or no connection has it. A usage error (exit 2).
 */
const unknownVehicle = (vehicleId: string, error: { readonly _tag: string; readonly message: string }) =>
  new SampleError({
    reason: `Unknown vehicle ${vehicleId}: ${
      error._tag === "NotConnected" ? "no connection of this application has it" : `the service refused the id (${error.message})`
    }; \`sample connections\` lists the connected vehicles`,
    usage: true
  })

/** The legacy rounding of a converted unit: how far the two sides may be apart. */
const tolerance = (path: LegacyPath, unitSystem: UnitSystem): number =>
  path === "/odometer" && unitSystem === "imperial" ? 0.005
  : path === "/tires/pressure" && unitSystem === "imperial" ? 0.05
  : path === "/engine/oil" ? 0.0005
  : 0

/**
 * Whether a legacy value and a migrated one agree: the same keys, strings
 * equal, numbers within the legacy rounding of the unit conversion.
 *
 * @example
 * ```ts
 * import { agree } from "@connected-vehicle/sample/Migrate"
 *
 * agree("/odometer", "imperial", { distance: 10.01 }, { distance: 10.0062 }) // true
 * ```
 * @since 0.2.0
 * @category utils
 */
export const agree = (path: LegacyPath, unitSystem: UnitSystem, legacy: unknown, v3: unknown): boolean => {
  if (typeof legacy !== "object" || legacy === null || typeof v3 !== "object" || v3 === null) return false
  const a = legacy as Record<string, unknown>
  const b = v3 as Record<string, unknown>
  const keys = Object.keys(a).sort()
  if (keys.join() !== Object.keys(b).sort().join()) return false
  const within = tolerance(path, unitSystem) + 1e-9
  return keys.every((k) =>
    typeof a[k] === "number" && typeof b[k] === "number" ? Math.abs((a[k] as number) - (b[k] as number)) <= within : a[k] === b[k]
  )
}

const outcome = <A, E extends { readonly _tag: string; readonly message: string }>(
  result: Result.Result<A, E>
): Outcome =>
  Result.isSuccess(result)
    ? { ok: true, value: result.success }
    : { ok: false, error: { tag: reasonOf(result.failure)._tag, message: result.failure.message } }

/**
 * Runs each legacy read of `vehicleId` (the signed-in user's token) and its v3
 * equivalent (the application token, `sc-user-id` of the vehicle's
 * connection), one after the other.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
 * import { check } from "@connected-vehicle/sample/Migrate"
 *
 * const program = Effect.flatMap(Effect.service(Vehicles), (vehicles) => check(vehicles, "veh_1", { unitSystem: "imperial" }))
 * ```
 * @since 0.2.0
 * @category commands
 */
export const check = (
  vehicles: Vehicles["Service"],
  vehicleId: string,
  options: { readonly unitSystem: UnitSystem; readonly userId?: string | undefined }
): Effect.Effect<Report, Migration.ReadError | SampleError, Signals | Connections> =>
  Effect.gen(function*() {
    const { unitSystem } = options
    const userId = options.userId ?? (yield* Migration.userIdOf(vehicleId).pipe(
      Effect.catchIf(
        (error) => error._tag === "NotConnected" || reasonOf(error)._tag === "Validation",
        (error) => Effect.fail(unknownVehicle(vehicleId, error))
      )
    ))
    const checks: Array<Check> = []
    // every legacy read of the service (`Vehicles.reads`, the contract's read endpoints), in their order
    for (const [name, path] of Object.entries(Vehicles.reads) as Array<[keyof typeof Vehicles.reads, LegacyPath]>) {
      const read: Effect.Effect<{ readonly value: unknown }, Migration.ReadError> = vehicles[name](vehicleId, { unitSystem })
      const legacy = outcome(yield* Effect.result(Effect.map(read, (r) => r.value)))
      const signal = Migration.signalCodes[path]
      if (signal === undefined) {
        checks.push({ path, signal: null, legacy, v3: null, agree: null })
        continue
      }
      // a read with a signal code is one `Migration` converts
      const migrated = Migration.read(path as Migration.MigratedPath, { vehicleId, userId }, { unitSystem })
      const v3 = outcome(yield* Effect.result(Effect.map(migrated, (r) => r.value)))
      checks.push({
        path,
        signal,
        legacy,
        v3,
        agree: legacy.ok && v3.ok ? agree(path, unitSystem, legacy.value, v3.value) : null
      })
    }
    return reportOf({ vehicleId, userId, unitSystem }, checks)
  })

const show = (o: Outcome | null): string =>
  o === null ? "(no v3 equivalent)" : o.ok ? JSON.stringify(o.value) : `${o.error.tag}: ${o.error.message}`

const shorten = (text: string) => text.length > 70 ? `${text.slice(0, 67)}...` : text

/**
 * The report as a table: path, v3 signal, legacy value, v3 value, agreement;
 * then the counts and why each read not compared was not.
 *
 * @example
 * ```ts
 * import { render } from "@connected-vehicle/sample/Migrate"
 *
 * console.log(render({ vehicleId: "veh_1", userId: "usr_1", unitSystem: "metric", checks: [], compared: 0, agreeing: 0, notCompared: [], hint: null }))
 * ```
 * @since 0.2.0
 * @category rendering
 */
export const render = (report: Report): string => {
  const rows = renderTable(report.checks, [
    { header: "V2.0 READ", cell: (c: Check) => c.path },
    { header: "V3 SIGNAL", cell: (c: Check) => c.signal ?? "-" },
    { header: "LEGACY VALUE", cell: (c: Check) => shorten(show(c.legacy)) },
    { header: "V3 VALUE", cell: (c: Check) => shorten(show(c.v3)) },
    { header: "AGREE", cell: (c: Check) => c.agree === null ? (c.v3 === null ? "n/a" : "-") : c.agree ? "yes" : "NO" }
  ])
  return [
    `Vehicle ${printable(report.vehicleId)}, user ${printable(report.userId)}, ${report.unitSystem}`,
    "",
    rows,
    "",
    `${report.agreeing} of ${report.compared} compared reads agree`,
    ...(report.notCompared.length === 0 ? [] : [
      `Not compared (${report.notCompared.length}):`,
      ...report.notCompared.map((n) => `  ${n.path}: ${printable(n.reason)}`)
    ]),
    ...(report.hint === null ? [] : [printable(report.hint)])
  ].join("\n")
}
