/**
 * The legacy v2.0 client. **v2.0 is deprecated as of December 1, 2026** (spec
 * section 9; the vehicle list is not deprecated and may be used meanwhile):
 * move to `@connected-vehicle/v3` (`Migration` returns the same legacy shapes
 * from v3 signals), see `docs/migrating-to-v3.md`.
 *
 * @since 0.1.0
 */

/**
 * The entries of a batch response, one typed result per requested path.
 *
 * @example
 * ```ts
 * import type { Batch } from "@connected-vehicle/legacy-v2"
 *
 * type OdometerAndVin = Batch.BatchResult<"/odometer" | "/vin">
 * ```
 * @deprecated v2.0 is deprecated as of 2026-12-01: v3 has no batch; use one `Migration` read per path of `@connected-vehicle/v3`.
 * @since 0.1.0
 * @category modules
 */
export * as Batch from "./Batch.ts"
/**
 * The deprecation headers of v2.0 responses, and the warning logged once per
 * endpoint.
 *
 * @example
 * ```ts
 * import { Deprecation } from "@connected-vehicle/legacy-v2"
 *
 * const deprecation = Deprecation.fromHeaders({ deprecation: "@1796083200" })
 * ```
 * @deprecated v2.0 is deprecated as of 2026-12-01: the deprecation headers go away with v2.0; see `Migration` of `@connected-vehicle/v3`.
 * @since 0.2.0
 * @category modules
 */
export * as Deprecation from "./Deprecation.ts"
/**
 * The decoded body of a legacy read with its data age and unit system.
 *
 * @example
 * ```ts
 * import type { Odometer } from "@connected-vehicle/schema/Legacy"
 * import type { Reading } from "@connected-vehicle/legacy-v2"
 *
 * const distance = (r: Reading.Reading<Odometer>) => r.value.distance
 * ```
 * @deprecated v2.0 is deprecated as of 2026-12-01: use `Migration.Reading` of `@connected-vehicle/v3`.
 * @since 0.1.0
 * @category modules
 */
export * as Reading from "./Reading.ts"
/**
 * The legacy vehicle-data service: the vehicle list, each read and the batch.
 * The reads and the batch are deprecated as of 2026-12-01 (use `Migration` of
 * `@connected-vehicle/v3`); the vehicle list is not (spec section 9.3).
 *
 * @example
 * ```ts
 * import { Vehicles } from "@connected-vehicle/legacy-v2"
 *
 * const VehiclesLive = Vehicles.layer({ deprecationWarnings: "off" })
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Vehicles from "./Vehicles.ts"
