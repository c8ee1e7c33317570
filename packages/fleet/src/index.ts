/**
 * Run the connected-vehicle SDK across many processes: durable webhook
 * ingestion, in memory or on Postgres.
 *
 * @since 0.1.0
 */
/**
 * The Postgres database of a fleet deployment: `DATABASE_URL` through one
 * Effect `Config` value, and the `SqlClient` on it.
 *
 * @example
 * ```ts
 * import { Database } from "@connected-vehicle/fleet"
 *
 * const url = Database.config
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Database from "./Database.ts"
/**
 * The one error of this package, with a `reason`.
 *
 * @example
 * ```ts
 * import { FleetError } from "@connected-vehicle/fleet"
 *
 * const explain = (error: FleetError.FleetError) => `${error.reason}: ${error.description}`
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as FleetError from "./FleetError.ts"
