/**
 * Connections (section 4.2): list with every filter and paging, every
 * connection as a Stream, one connection by id.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { Stream } from "effect"
import { VehicleApi } from "@connected-vehicle/schema/Api"
import type { Mode } from "@connected-vehicle/schema/Common"
import type { ConnectionListItem, ConnectionResponse, ConnectionsPage } from "@connected-vehicle/schema/Connection"
import type { ServiceError } from "@connected-vehicle/schema/ServiceError"
import type { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import type { TransportError } from "@connected-vehicle/transport/TransportError"
import type { InvalidArgument } from "./InvalidArgument.ts"
import type { PageArgs } from "./internal/paged.ts"
import { paged } from "./internal/paged.ts"
import { compact } from "./internal/validate.ts"

/**
 * Filters of the connection list (sent as `filter[userId]`, `filter[vehicleId]`,
 * `filter[mode]`, `filter[userExternalId]`).
 *
 * @since 0.1.0
 */
export interface Filters {
  readonly userId?: string | undefined
  readonly vehicleId?: string | undefined
  readonly mode?: Mode | undefined
  readonly userExternalId?: string | undefined
}

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
 */
export class Connections extends Context.Service<Connections, {
  readonly list: (args?: Filters & PageArgs) => Effect.Effect<ConnectionsPage, InvalidArgument | ServiceError | TransportError>
  readonly stream: (
    args?: Filters & { readonly pageSize?: number | undefined }
  ) => Stream.Stream<ConnectionListItem, InvalidArgument | ServiceError | TransportError>
  readonly get: (connectionId: string) => Effect.Effect<ConnectionResponse, ServiceError | TransportError>
}>()("@connected-vehicle/v3/Connections") {}

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
 */
export const make: Effect.Effect<Connections["Service"], never, Transport.Transport | Credentials> = Effect.gen(
  function*() {
    const client = yield* Transport.client(VehicleApi, "connections")
    const { list, stream } = paged((args: Filters & PageArgs) =>
      client.list({
        query: compact({
          "filter[userId]": args.userId,
          "filter[vehicleId]": args.vehicleId,
          "filter[mode]": args.mode,
          "filter[userExternalId]": args.userExternalId,
          page: args.page,
          pageSize: args.pageSize
        })
      })
    )
    return Connections.of({
      list: (args = {}) => list(args),
      stream: (args = {}) => stream(args),
      get: (connectionId) => Effect.map(client.get({ params: { connectionId } }), (r) => r.value)
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
 */
export const layer: Layer.Layer<Connections, never, Transport.Transport | Credentials> = Layer.effect(Connections, make)
