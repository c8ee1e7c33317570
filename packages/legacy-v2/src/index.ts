/**
 * The legacy v2.0 client. **Deprecated: v2.0's sunset date is December 1, 2026**;
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
 * @deprecated v2.0's sunset date is 2026-12-01: v3 has no batch; use one `Migration` read per path of `@connected-vehicle/v3`.
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
 * const deprecation = Deprecation.fromHeaders({ sunset: "Tue, 01 Dec 2026 00:00:00 GMT" })
 * ```
 * @deprecated v2.0's sunset date is 2026-12-01: the deprecation headers go away with v2.0; see `Migration` of `@connected-vehicle/v3`.
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
 * @deprecated v2.0's sunset date is 2026-12-01: use `Migration.Reading` of `@connected-vehicle/v3`.
 * @since 0.1.0
 * @category modules
 */
export * as Reading from "./Reading.ts"
/**
 * The legacy vehicle-data service: the vehicle list, each read and the batch.
 *
 * @example
 * ```ts
 * import { Vehicles } from "@connected-vehicle/legacy-v2"
 *
 * const VehiclesLive = Vehicles.layer({ deprecationWarnings: "off" })
 * ```
 * @deprecated v2.0's sunset date is 2026-12-01: use `Migration` (`Migration.odometer`, ...) and `Signals.get` of `@connected-vehicle/v3`.
 * @since 0.1.0
 * @category modules
 */
export * as Vehicles from "./Vehicles.ts"
