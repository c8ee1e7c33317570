/**
 * The connection resource (section 2.3): list form and single form.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Relationship, SelfLinks, Timestamps, VehicleSummary } from "./Common.ts"
import { OrderedPageMeta, Page } from "./Pagination.ts"

const attributes = {
  permissions: Schema.Array(Schema.String),
  vehicle: VehicleSummary
}

const base = {
  id: Schema.String,
  type: Schema.Literal("connection"),
  meta: Timestamps,
  links: SelfLinks
}

const VehicleRelationship = Relationship(Schema.Literal("vehicle"))
const UserRelationship = Relationship(Schema.Literal("user"))

/**
 * A connection as returned by `GET /connections/{id}` (no `attributes.user`,
 * no `relationships.user.links`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Connection } from "@connected-vehicle/schema/Connection"
 *
 * const decode = Schema.decodeUnknownEffect(Connection)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Connection = Schema.Struct({
  ...base,
  attributes: Schema.Struct(attributes),
  relationships: Schema.Struct({
    vehicle: VehicleRelationship,
    user: Schema.Struct({ data: UserRelationship.fields.data })
  })
}).annotate({ identifier: "Connection" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Connection } from "@connected-vehicle/schema/Connection"
 *
 * const isConnection: (u: unknown) => u is Connection = Schema.is(Connection)
 * ```
 * @category models
 * @since 0.1.0
 */
export type Connection = typeof Connection.Type

/**
 * A connection as listed by `GET /connections` (with `attributes.user` and
 * `relationships.user.links`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConnectionListItem } from "@connected-vehicle/schema/Connection"
 *
 * const isConnectionListItem = Schema.is(ConnectionListItem)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ConnectionListItem = Schema.Struct({
  ...base,
  attributes: Schema.Struct({
    ...attributes,
    user: Schema.Struct({ id: Schema.String, externalId: Schema.String })
  }),
  relationships: Schema.Struct({ vehicle: VehicleRelationship, user: UserRelationship })
}).annotate({ identifier: "ConnectionListItem" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConnectionListItem } from "@connected-vehicle/schema/Connection"
 *
 * const isConnectionListItem: (u: unknown) => u is ConnectionListItem = Schema.is(ConnectionListItem)
 * ```
 * @category models
 * @since 0.1.0
 */
export type ConnectionListItem = typeof ConnectionListItem.Type

/**
 * `GET /connections` response.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConnectionsPage } from "@connected-vehicle/schema/Connection"
 *
 * const isConnectionsPage = Schema.is(ConnectionsPage)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ConnectionsPage = Page(ConnectionListItem, OrderedPageMeta).annotate({ identifier: "ConnectionsPage" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConnectionsPage } from "@connected-vehicle/schema/Connection"
 *
 * const isConnectionsPage: (u: unknown) => u is ConnectionsPage = Schema.is(ConnectionsPage)
 * ```
 * @category models
 * @since 0.1.0
 */
export type ConnectionsPage = typeof ConnectionsPage.Type

/**
 * `GET /connections/{id}` response.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConnectionResponse } from "@connected-vehicle/schema/Connection"
 *
 * const isConnectionResponse = Schema.is(ConnectionResponse)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const ConnectionResponse = Schema.Struct({ data: Connection }).annotate({ identifier: "ConnectionResponse" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConnectionResponse } from "@connected-vehicle/schema/Connection"
 *
 * const isConnectionResponse: (u: unknown) => u is ConnectionResponse = Schema.is(ConnectionResponse)
 * ```
 * @category models
 * @since 0.1.0
 */
export type ConnectionResponse = typeof ConnectionResponse.Type
