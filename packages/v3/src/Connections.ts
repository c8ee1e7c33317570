/**
 * Connections (section 4.2): list with every filter and paging, every
 * connection as a Stream, one connection by id.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { ConnectionsQuery, VehicleApi } from "@connected-vehicle/schema/Api"
import type { ConnectionsGroup } from "@connected-vehicle/schema/Api"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { ArgsOf } from "./internal/args.ts"
import type { ResourceOf } from "./internal/resource.ts"
import { resource } from "./internal/resource.ts"

/**
 * Arguments of `list`, `pages` and `stream`, derived from the contract's
 * `ConnectionsQuery`: each `filter[x]` is the argument `x`; `page` (>= 1) and `pageSize`
 * (1..100). Every field is optional.
 *
 * @example
 * ```ts
 * import type { ListArgs } from "@connected-vehicle/v3/Connections"
 *
 * const args: ListArgs = { pageSize: 50 }
 * ```
 * @since 0.1.0
 * @category models
 */
export type ListArgs = ArgsOf<typeof ConnectionsQuery.Type>

/**
 * Filters of the connection list (sent as `filter[userId]`, `filter[vehicleId]`,
 * `filter[mode]`, `filter[userExternalId]`).
 *
 * @example
 * ```ts
 * import type { Filters } from "@connected-vehicle/v3/Connections"
 *
 * const filters: Filters = { userId: "x" }
 * ```
 * @since 0.1.0
 * @category models
 */
export type Filters = Omit<ListArgs, "page" | "pageSize">

// The table of the service over the contract's connections group: the list's
// query, and the path parameter of `get`.
const endpoints = { list: { query: ConnectionsQuery }, get: { id: "connectionId" } } as const

/**
 * The connections service. The service's defaults apply when `page` (1) or
 * `pageSize` (10) are omitted; `stream` reads pages of 100 unless told otherwise.
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Connections } from "@connected-vehicle/v3/Connections"
 *
 * const program = Effect.gen(function*() {
 *   const connections = yield* Connections
 *   const page = yield* connections.list({ mode: "live", pageSize: 25 })
 *   const all = yield* Stream.runCount(connections.stream({ userId: "usr_1" }))
 *   return [page.meta.totalCount, all]
 * })
 * ```
 * @since 0.1.0
 * @category services
 */
export class Connections extends Context.Service<
  Connections,
  ResourceOf<Transport.GroupClient<typeof ConnectionsGroup, "connections">, typeof endpoints>
>()("@connected-vehicle/v3/Connections") {
  /**
   * The table the service is derived from: each endpoint of the contract's
   * connections group it calls, and where each argument goes in the request.
   *
   * @example
   * ```ts
   * import { Connections } from "@connected-vehicle/v3/Connections"
   *
   * const calls = Object.keys(Connections.endpoints) // the endpoints of the group the service calls
   * ```
   * @since 0.2.0
   * @category tables
   */
  static readonly endpoints = endpoints
}

/**
 * Builds the service from the transport and the credential.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Connections, make } from "@connected-vehicle/v3/Connections"
 *
 * const ConnectionsLive = Layer.effect(Connections, make)
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Connections["Service"], never, Transport.Transport | Credentials> = Effect.map(
  Transport.client(VehicleApi, "connections"),
  (client) => Connections.of(resource(client, endpoints))
)

/**
 * The service on the transport and the credential.
 *
 * @example
 * ```ts
 * import * as Connections from "@connected-vehicle/v3/Connections"
 *
 * const ConnectionsLive = Connections.layer
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Connections, never, Transport.Transport | Credentials> = Layer.effect(Connections, make)
