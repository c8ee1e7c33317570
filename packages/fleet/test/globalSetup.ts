/**
 * One Postgres and one Redis for the whole `fleet` project: started before
 * the first test file, stopped after the last. Test files read their URLs
 * with `inject("databaseUrl")` / `inject("redisUrl")` (and pass them on to
 * the processes they start); each file creates its own database.
 */
import * as PostgresServer from "@connected-vehicle/testing/PostgresServer"
import * as RedisServer from "@connected-vehicle/testing/RedisServer"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
    readonly databaseUrl: string
    /** `redis://127.0.0.1:<port>`. */
    readonly redisUrl: string
  }
}

export default async function setup(project: TestProject) {
  const [postgres, redis] = await Promise.all([PostgresServer.start(), RedisServer.start()])
  project.provide("databaseUrl", postgres.url)
  project.provide("redisUrl", redis.url)
  return async () => {
    await Promise.all([postgres.stop(), redis.stop()])
  }
}
