/**
 * The groups of the v3 vehicle API (`{base_url}`): signals and connections.
 *
 * @internal
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Mode } from "../../Common.ts"
import { ConnectionResponse, ConnectionsPage } from "../../Connection.ts"
import { SignalResponse, SignalsPage } from "../../Signal.ts"
import { bearer, commonErrors, paging, queryPaging } from "./responses.ts"

/**
 * Signals (section 4.1). `sc-user-id` is required.
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { SignalsGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(SignalsGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export class SignalsGroup extends HttpApiGroup.make("signals").add(
  HttpApiEndpoint.get("list", "/vehicles/:vehicleId/signals", {
    params: { vehicleId: Schema.String },
    query: queryPaging,
    headers: { ...bearer, "sc-user-id": Schema.String },
    success: SignalsPage,
    error: commonErrors
  }),
  HttpApiEndpoint.get("get", "/vehicles/:vehicleId/signals/:signalCode", {
    params: { vehicleId: Schema.String, signalCode: Schema.String },
    headers: { ...bearer, "sc-user-id": Schema.String },
    success: SignalResponse,
    error: commonErrors
  })
) {}

/**
 * Connection list filters (section 4.2).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConnectionsQuery } from "@connected-vehicle/schema/Api"
 *
 * const isConnectionsQuery = Schema.is(ConnectionsQuery)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ConnectionsQuery = Schema.Struct({
  "filter[userId]": Schema.optionalKey(Schema.String),
  "filter[vehicleId]": Schema.optionalKey(Schema.String),
  "filter[mode]": Schema.optionalKey(Mode),
  "filter[userExternalId]": Schema.optionalKey(Schema.String),
  ...paging
})

/**
 * Connections (section 4.2).
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { ConnectionsGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(ConnectionsGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export class ConnectionsGroup extends HttpApiGroup.make("connections").add(
  HttpApiEndpoint.get("list", "/connections", {
    query: ConnectionsQuery.mapFields((fields) => ({ ...fields, ...queryPaging })),
    headers: bearer,
    success: ConnectionsPage,
    error: commonErrors
  }),
  HttpApiEndpoint.get("get", "/connections/:connectionId", {
    params: { connectionId: Schema.String },
    headers: bearer,
    success: ConnectionResponse,
    error: commonErrors
  })
) {}
