/**
 * The simulator's request log, filtered by path: what a test asserts on after
 * a call (statuses, headers as the service saw them, request ids).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import type { RequestLogEntry } from "@connected-vehicle/simulator/Simulator"

/**
 * The requests the simulator logged (oldest first) whose path is `path` (a
 * string) or matches it (a `RegExp`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as RequestLog from "@connected-vehicle/testing/RequestLog"
 *
 * const tokenRequests = Effect.map(RequestLog.matching("/oauth/token"), (entries) => entries.length)
 * const legacyStatuses = Effect.map(RequestLog.matching(/^\/v2\.0\//), (entries) => entries.map((e) => e.status))
 * ```
 * @since 0.1.0
 * @category accessors
 */
export const matching = (path: string | RegExp): Effect.Effect<ReadonlyArray<RequestLogEntry>, never, Simulator> =>
  Effect.map(
    Effect.flatMap(Effect.service(Simulator), (sim) => sim.requests),
    (entries) => entries.filter((e) => typeof path === "string" ? e.path === path : path.test(e.path))
  )
