/**
 * A legacy read: the decoded body with the response's data age and unit system.
 *
 * @since 0.1.0
 */
import type { DateTime } from "effect"
import type { UnitSystem } from "@connected-vehicle/schema/Legacy"
import type { Deprecation } from "./Deprecation.ts"

/**
 * The decoded body of a legacy read, with
 *
 * - `dataAge`: the `sc-data-age` response header decoded to a `DateTime.Utc`
 *   (when the vehicle data was last refreshed); `undefined` when the service
 *   sent none;
 * - `unitSystem`: the `sc-unit-system` response header (the requested unit
 *   system when the service sent none);
 * - `requestId`: the request id response header, when present;
 * - `deprecation`: the `Deprecation` / `Sunset` / `Link rel="deprecation"`
 *   headers of the response, when it sent any (the reads and the batch are
 *   deprecated as of December 1, 2026; `sunsetAt` only once a removal date is
 *   announced).
 *
 * @example
 * ```ts
 * import { DateTime } from "effect"
 * import type { Odometer } from "@connected-vehicle/schema/Legacy"
 * import type { Reading } from "@connected-vehicle/legacy-v2/Reading"
 *
 * const describe = (r: Reading<Odometer>) =>
 *   `${r.value.distance} ${r.unitSystem === "metric" ? "km" : "mi"} as of ${r.dataAge ? DateTime.formatIso(r.dataAge) : "unknown"}`
 * ```
 * @deprecated v2.0 is deprecated as of 2026-12-01: the v3 reads of `Migration` in
 * `@connected-vehicle/v3` return the same value (`Migration.Reading`), see
 * `docs/migrating-to-v3.md`.
 * @since 0.1.0
 * @category models
 */
export interface Reading<A> {
  readonly value: A
  readonly dataAge: DateTime.Utc | undefined
  readonly unitSystem: UnitSystem
  readonly requestId: string | undefined
  readonly deprecation?: Deprecation
}
