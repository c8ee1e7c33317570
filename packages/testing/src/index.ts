/**
 * @since 0.1.0
 */

/**
 * The simulator on 127.0.0.1 and the transport talking to it over a real
 * socket.
 *
 * @example
 * ```ts
 * import { Loopback } from "@connected-vehicle/testing"
 *
 * const Wire = Loopback.layer()
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Loopback from "./Loopback.ts"
/**
 * A mock `HttpClient` that answers from a script and records every request.
 *
 * @example
 * ```ts
 * import { RecordingHttpClient } from "@connected-vehicle/testing"
 *
 * const Mock = RecordingHttpClient.layer(() => ({ status: 200, json: { data: [] } }))
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as RecordingHttpClient from "./RecordingHttpClient.ts"
/**
 * A `Tracer` keeping every span it starts.
 *
 * @example
 * ```ts
 * import { RecordingTracer } from "@connected-vehicle/testing"
 *
 * const { spans, tracer } = RecordingTracer.make()
 * ```
 * @since 0.2.0
 * @category modules
 */
export * as RecordingTracer from "./RecordingTracer.ts"
/**
 * The simulator's request log, filtered by path.
 *
 * @example
 * ```ts
 * import { RequestLog } from "@connected-vehicle/testing"
 *
 * const tokenRequests = RequestLog.matching("/oauth/token")
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as RequestLog from "./RequestLog.ts"
/**
 * The whole SDK on the simulator, for tests and demos.
 *
 * @example
 * ```ts
 * import { Simulated } from "@connected-vehicle/testing"
 *
 * const SdkOnSimulator = Simulated.layer()
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Simulated from "./Simulated.ts"
/**
 * Credentials from the simulator: a user's authorization code and an
 * application token.
 *
 * @example
 * ```ts
 * import { SignIn } from "@connected-vehicle/testing"
 *
 * const code = SignIn.authorizationCode("usr_1", { scope: "read_odometer" })
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as SignIn from "./SignIn.ts"
/**
 * The transport without a network: on a recording mock `HttpClient`, or on
 * the simulator's in-memory `HttpClient`.
 *
 * @example
 * ```ts
 * import { TransportTest } from "@connected-vehicle/testing"
 *
 * const InMemory = TransportTest.layerSimulator()
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as TransportTest from "./TransportTest.ts"
/**
 * Why a local server for tests (Postgres, Redis) could not be started or
 * used.
 *
 * @example
 * ```ts
 * import { LocalServerError } from "@connected-vehicle/testing"
 *
 * const isMissing = (error: LocalServerError.LocalServerError) => error.reason === "BinaryMissing"
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as LocalServerError from "./LocalServerError.ts"
/**
 * A throwaway Postgres (Debian's `postgresql`) on 127.0.0.1, a free port and
 * a temporary directory, stopped with the scope.
 *
 * @example
 * ```ts
 * import { PostgresServer } from "@connected-vehicle/testing"
 *
 * const Database = PostgresServer.layer()
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as PostgresServer from "./PostgresServer.ts"
/**
 * A throwaway Redis (Debian's `redis-server`) on 127.0.0.1 and a free port,
 * nothing saved to disk, stopped with the scope.
 *
 * @example
 * ```ts
 * import { RedisServer } from "@connected-vehicle/testing"
 *
 * const Redis = RedisServer.layer()
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as RedisServer from "./RedisServer.ts"
