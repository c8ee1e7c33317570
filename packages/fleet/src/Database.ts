/**
 * The Postgres database of a fleet deployment: `DATABASE_URL`, read through
 * one Effect `Config` value, and the `SqlClient` on it (`@effect/sql-pg`).
 * Without it, the fleet runs in one process on in-memory stores.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, type Layer, type Option, type Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import { FleetError } from "./FleetError.ts"

/**
 * `DATABASE_URL` (a `postgres://` URL, kept `Redacted`), or `None` when unset:
 * the in-memory default.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import * as Database from "@connected-vehicle/fleet/Database"
 *
 * const program = Effect.map(Database.config, (url) => Option.isSome(url) ? "postgres" : "memory")
 * ```
 * @since 0.1.0
 * @category config
 */
export const config: Config.Config<Option.Option<Redacted.Redacted<string>>> = Config.option(
  Config.Redacted("DATABASE_URL")
)

/**
 * Options of {@link layer}.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Options } from "@connected-vehicle/fleet/Database"
 *
 * const options: Options = { url: Redacted.make("postgres://fleet@db.internal:5432/fleet"), maxConnections: 10 }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly url: Redacted.Redacted<string>
  /** Connections in the pool (default 10). */
  readonly maxConnections?: number | undefined
}

/**
 * The `SqlClient` (and `PgClient`) on Postgres: a pool, closed with the
 * layer. It runs one query when built, so an unreachable server or a wrong
 * URL fails there, with `FleetError` `DatabaseUnavailable`.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import * as Database from "@connected-vehicle/fleet/Database"
 *
 * const Sql = Database.layer({ url: Redacted.make("postgres://fleet@127.0.0.1:5432/fleet") })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, FleetError> =>
  PgClient.layerFrom(
    PgClient.make({
      url: options.url,
      maxConnections: options.maxConnections ?? 10,
      applicationName: "@connected-vehicle/fleet"
    }).pipe(
      // the pool connects lazily: one query so a wrong URL fails here, at start-up
      Effect.tap((client) => client`SELECT 1`),
      Effect.mapError((cause) =>
        new FleetError({ reason: "DatabaseUnavailable", description: `cannot connect to Postgres: ${cause.message}`, cause })
      )
    )
  )

/**
 * {@link config} read (a `FleetError` `Configuration` when invalid): the URL,
 * or `None` for the in-memory default.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Database from "@connected-vehicle/fleet/Database"
 *
 * const mode = Effect.map(Database.readConfig, (url) => url._tag === "Some" ? "postgres" : "memory")
 * ```
 * @since 0.1.0
 * @category config
 */
export const readConfig: Effect.Effect<Option.Option<Redacted.Redacted<string>>, FleetError> = config.pipe(
  Effect.mapError((cause) => new FleetError({ reason: "Configuration", description: cause.message, cause }))
)
