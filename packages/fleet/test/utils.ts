/**
 * What the fleet tests share: a database of their own on the project's
 * Postgres (see `globalSetup.ts`).
 */
import { execFileSync } from "node:child_process"
import { Redacted } from "effect"
import { inject } from "vitest"

let databases = 0

/** Creates a database named after `prefix` on the shared server and answers its URL. */
export const freshDatabase = (prefix: string): Redacted.Redacted<string> => {
  const name = `${prefix}_${process.pid}_${++databases}`
  const admin = inject("databaseUrl")
  execFileSync("psql", [admin, "-v", "ON_ERROR_STOP=1", "-qc", `CREATE DATABASE "${name}"`], { stdio: ["ignore", "pipe", "pipe"] })
  return Redacted.make(admin.replace(/\/postgres$/, `/${name}`))
}
