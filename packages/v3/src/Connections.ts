/**
 * Connections (section 4.2): list with every filter and paging, every
 * connection as a Stream, one connection by id.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { Stream } from "effect"
import { ConnectionsQuery, VehicleApi } from "@connected-vehicle/schema/Api"
import type { ConnectionListItem, ConnectionResponse, ConnectionsPage } from "@connected-vehicle/schema/Connection"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import type * as Pagination from "@connected-vehicle/transport/Pagination"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { paged } from "./internal/paged.ts"
import type { ArgsOf } from "./internal/args.ts"
import { identifier, toQuery } from "./internal/args.ts"

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
export class Connections extends Context.Service<Connections, {
  readonly list: (
    args?: ListArgs,
    options?: Transport.CallOptions
  ) => Effect.Effect<ConnectionsPage, InvalidArgument | ConnectedVehicleError>
  /** Every page from `page` (default 1), `pageSize` (default 100) items each, fetched on demand. */
  readonly pages: (
    args?: ListArgs,
    options?: Transport.CallOptions
  ) => Stream.Stream<ConnectionsPage, InvalidArgument | ConnectedVehicleError>
  /** Every item, one chunk per page; each page requested when the consumer needs it (`readAhead: 1`: the next page is requested as the current one is handed on). */
  readonly stream: (
    args?: ListArgs,
    options?: Pagination.StreamOptions
  ) => Stream.Stream<ConnectionListItem, InvalidArgument | ConnectedVehicleError>
  readonly get: (
    connectionId: string,
    options?: Transport.CallOptions
  ) => Effect.Effect<ConnectionResponse, InvalidArgument | ConnectedVehicleError>
}>()("@connected-vehicle/v3/Connections") {}

const checkArgs = toQuery(ConnectionsQuery)

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
export const make: Effect.Effect<Connections["Service"], never, Transport.Transport | Credentials> = Effect.gen(
  function*() {
    const client = yield* Transport.client(VehicleApi, "connections")
    const { list, pages, stream } = paged(
      (args: ListArgs | undefined) => Effect.map(checkArgs(args), (query) => ({ query })),
      client.list
    )
    return Connections.of({
      list,
      pages,
      stream,
      get: (connectionId, options) =>
        identifier("connectionId", connectionId).pipe(
          Effect.flatMap(() => client.get({ params: { connectionId } }, options)),
          Effect.map((r) => r.value)
        )
    })
  }
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
