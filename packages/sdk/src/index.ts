/**
 * @since 0.1.0
 */

/**
 * The whole SDK for an application in one layer.
 *
 * @example
 * ```ts
 * import { ConnectedVehicle } from "@connected-vehicle/sdk"
 *
 * const SdkLive = ConnectedVehicle.layerConfig()
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as ConnectedVehicle from "./ConnectedVehicle.ts"
/**
 * A Promise API for applications not written with Effect.
 *
 * @example
 * ```ts
 * import { Client } from "@connected-vehicle/sdk"
 *
 * const client = Client.createClient({ clientId: "client_1", clientSecret: "secret", origin: "http://127.0.0.1:4010" })
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Client from "./Client.ts"
/**
 * The errors of the Promise client, as classes for `instanceof`.
 *
 * @example
 * ```ts
 * import { ClientError } from "@connected-vehicle/sdk"
 *
 * const isSdkError = (u: unknown) => u instanceof ClientError.ConnectedVehicleError
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as ClientError from "./ClientError.ts"
