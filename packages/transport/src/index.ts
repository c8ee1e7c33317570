/**
 * @since 0.1.0
 */

/**
 * The bearer credential of a request, as a service, and a fixed-token layer.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { Credentials } from "@connected-vehicle/transport"
 *
 * const CredentialsLive = Credentials.layerStatic(Redacted.make("token"))
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Credentials from "./Credentials.ts"
/**
 * Lists as Streams: v3 page-number paging and legacy offset paging.
 *
 * @example
 * ```ts
 * import { Pagination } from "@connected-vehicle/transport"
 *
 * const onDemand = Pagination.isReadAhead(0) // true
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Pagination from "./Pagination.ts"
/**
 * What an `HttpClient` says of a request of which nothing was written.
 *
 * @example
 * ```ts
 * import { RequestNotSent } from "@connected-vehicle/transport"
 *
 * const unsent = RequestNotSent.isNotSent(new RequestNotSent.RequestNotSent(new Error("connect ECONNREFUSED"))) // true
 * ```
 * @since 0.2.0
 * @category modules
 */
export * as RequestNotSent from "./RequestNotSent.ts"
/**
 * What a call's own retry options (`retryWhile`, `retryWait`) are told of
 * each retry of its policy.
 *
 * @example
 * ```ts
 * import type { Retry } from "@connected-vehicle/transport"
 *
 * const first: Retry.While = (retry) => retry.attempt === 1
 * ```
 * @since 0.3.0
 * @category modules
 */
export * as Retry from "./Retry.ts"
/**
 * What an `HttpClient` says of a response body over its size limit.
 *
 * @example
 * ```ts
 * import { ResponseTooLarge } from "@connected-vehicle/transport"
 *
 * const limit = ResponseTooLarge.tooLargeIn(new ResponseTooLarge.ResponseTooLarge(1024))?.limit // 1024
 * ```
 * @since 0.3.0
 * @category modules
 */
export * as ResponseTooLarge from "./ResponseTooLarge.ts"
/**
 * What an `HttpClient` says of its responses' text: decoded as strict UTF-8.
 *
 * @example
 * ```ts
 * import { HttpClientRequest, HttpClientResponse } from "effect/http"
 * import { StrictUtf8 } from "@connected-vehicle/transport"
 *
 * const response = HttpClientResponse.fromWeb(HttpClientRequest.get("http://127.0.0.1:8080/v3/vehicles"), new Response("{}"))
 * StrictUtf8.markStrictUtf8(response)
 * ```
 * @since 0.3.0
 * @category modules
 */
export * as StrictUtf8 from "./StrictUtf8.ts"
/**
 * The `Retry-After` response header.
 *
 * @example
 * ```ts
 * import { RetryAfter } from "@connected-vehicle/transport"
 *
 * const delay = RetryAfter.parse("7", 0) // Duration.seconds(7)
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as RetryAfter from "./RetryAfter.ts"
/**
 * The request pipeline: typed clients built from the HttpApi contract.
 *
 * @example
 * ```ts
 * import { VehicleApi } from "@connected-vehicle/schema/Api"
 * import { Transport } from "@connected-vehicle/transport"
 *
 * const signals = Transport.client(VehicleApi, "signals")
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Transport from "./Transport.ts"
/**
 * Where the service lives and how the transport talks to it.
 *
 * @example
 * ```ts
 * import { TransportConfig } from "@connected-vehicle/transport"
 *
 * const TransportConfigLocal = TransportConfig.layerOrigin("http://127.0.0.1:4010")
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as TransportConfig from "./TransportConfig.ts"
/**
 * The error of a failed call: one class, its `reason` a tagged union.
 *
 * @example
 * ```ts
 * import type { ConnectedVehicleError } from "@connected-vehicle/transport"
 *
 * type Failure = ConnectedVehicleError.ConnectedVehicleError
 * ```
 * @since 0.2.0
 * @category modules
 */
export * as ConnectedVehicleError from "./ConnectedVehicleError.ts"
/**
 * A configuration that could not be read, as an `Error`.
 *
 * @example
 * ```ts
 * import type { ConfigurationError } from "@connected-vehicle/transport"
 *
 * type Failure = ConfigurationError.ConfigurationError
 * ```
 * @since 0.2.0
 * @category modules
 */
export * as ConfigurationError from "./ConfigurationError.ts"
/**
 * Durations from the environment: an Effect duration under a name, else the
 * deprecated `<name>_MS` milliseconds, and a warning naming those in use.
 *
 * @example
 * ```ts
 * import { DurationVariable } from "@connected-vehicle/transport"
 *
 * const timeout = DurationVariable.make("CONNECTED_VEHICLE_TIMEOUT", { positive: true })
 * ```
 * @since 0.2.0
 * @category modules
 */
export * as DurationVariable from "./DurationVariable.ts"

/**
 * Keyword settings read from the environment, in any case (`Keyword`), and
 * the check of an options object's keys (`unknownOption`).
 *
 * @example
 * ```ts
 * import { Setting } from "@connected-vehicle/transport"
 *
 * const mode = Setting.Keyword(["fast", "safe"])
 * ```
 * @since 0.3.0
 * @category modules
 */
export * as Setting from "./Setting.ts"
