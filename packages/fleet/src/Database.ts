/**
 * The Postgres database of a fleet deployment: the `SqlClient` (`@effect/sql-pg`)
 * on `DATABASE_URL` (read by `FleetConfig`). Without it, the fleet runs in
 * one process on in-memory stores.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, type Layer, Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import { Configuration, DatabaseUnavailable, FleetError } from "./FleetError.ts"
import { urlIssue } from "./internal/urls.ts"

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
 * database fails there, with `FleetError` `DatabaseUnavailable`; a URL that
 * does not parse (a reserved character not percent-encoded in the password,
 * a port out of 1-65535), or is not `postgres://` or `postgresql://`, fails
 * with `Configuration` saying which, whose message and cause hold no part of it.
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
  PgClient.layerFrom(Effect.andThen(
    checkUrl(options.url),
    PgClient.make({
      url: options.url,
      maxConnections: options.maxConnections ?? 10,
      applicationName: "@connected-vehicle/fleet"
    }).pipe(
      // the pool connects lazily: one query so a wrong URL fails here, at start-up
      Effect.tap((client) => client`SELECT 1`),
      Effect.mapError((cause) =>
        new FleetError({ reason: new DatabaseUnavailable({ description: `cannot connect to Postgres: ${cause.message}`, cause }) })
      )
    )
  ))

const checkUrl = (url: Redacted.Redacted<string>): Effect.Effect<void, FleetError> => {
  const issue = urlIssue(Redacted.value(url), ["postgres:", "postgresql:"])
  return issue === undefined ? Effect.void : Effect.fail(
    new FleetError({ reason: new Configuration({ description: `the Postgres URL (DATABASE_URL, or the url option) ${issue}` }) })
  )
}
