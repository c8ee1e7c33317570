/**
 * The legacy v2.0 client. **Deprecated: v2.0 sunsets on December 1, 2026**;
 * move to `@connected-vehicle/v3` (`Migration` returns the same legacy shapes
 * from v3 signals), see `docs/migrating-to-v3.md`.
 *
 * @since 0.1.0
 */

/**
 * @deprecated v2.0 sunsets on 2026-12-01: v3 has no batch; use one `Migration` read per path of `@connected-vehicle/v3`.
 * @since 0.1.0
 */
export * as Batch from "./Batch.ts"
/**
 * @deprecated v2.0 sunsets on 2026-12-01: the deprecation headers go away with v2.0; see `Migration` of `@connected-vehicle/v3`.
 * @since 0.2.0
 */
export * as Deprecation from "./Deprecation.ts"
/**
 * @deprecated v2.0 sunsets on 2026-12-01: use `Migration.Reading` of `@connected-vehicle/v3`.
 * @since 0.1.0
 */
export * as Reading from "./Reading.ts"
/**
 * @deprecated v2.0 sunsets on 2026-12-01: use `Migration` (`Migration.odometer`, ...) and `Signals.get` of `@connected-vehicle/v3`.
 * @since 0.1.0
 */
export * as Vehicles from "./Vehicles.ts"
