/**
 * The shape of a paged v3 service: one page, every page, every item, one
 * resource by its identifier.
 *
 * @since 0.2.0
 */
import type { Effect, Stream } from "effect"
import type { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type * as Pagination from "@connected-vehicle/transport/Pagination"
import type { CallOptions } from "@connected-vehicle/transport/Transport"

/**
 * The parameters of a list call: the arguments are optional when every one
 * of them is (`Connections`), required otherwise (a list under a vehicle,
 * whose `vehicleId` identifies it).
 *
 * @example
 * ```ts
 * import type { ListParameters } from "@connected-vehicle/v3/Resource"
 *
 * const optional: ListParameters<{ readonly pageSize?: number }, {}> = []
 * const required: ListParameters<{ readonly vehicleId: string }, {}> = [{ vehicleId: "veh_1" }]
 * ```
 * @since 0.2.0
 * @category type-level
 */
export type ListParameters<Args, Options> = {} extends Args ? [args?: Args, options?: Options]
  : [args: Args, options?: Options]

/**
 * A paged v3 resource: one page, every page, every item, one resource by its
 * identifier (`Get`: a string, or the identifying arguments). The shape of
 * the `Signals`, `Connections`, `Subscriptions` and `Webhooks` services,
 * derived from the `list` and `get` endpoints of their table over their
 * group of the contract (`Signals.endpoints`, ...); each other endpoint of a
 * table is a method of its name beside these.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import type { Resource } from "@connected-vehicle/v3/Resource"
 *
 * const count = <Page, Item, Response, E>(resource: Resource<{ readonly pageSize?: number }, Page, Item, string, Response, E>) =>
 *   Stream.runCount(resource.stream({ pageSize: 100 }))
 * ```
 * @since 0.2.0
 * @category models
 */
export interface Resource<ListArgs, Page, Item, Get, Response, E = never> {
  /** One page. */
  readonly list: (...args: ListParameters<ListArgs, CallOptions>) => Effect.Effect<Page, InvalidArgument | E>
  /** Every page from `page` (default 1), `pageSize` (default 100) items each, fetched on demand. */
  readonly pages: (...args: ListParameters<ListArgs, CallOptions>) => Stream.Stream<Page, InvalidArgument | E>
  /** Every item, one chunk per page; each page requested when the consumer needs it (`readAhead: 1`: the next page is requested as the current one is handed on). */
  readonly stream: (
    ...args: ListParameters<ListArgs, Pagination.StreamOptions>
  ) => Stream.Stream<Item, InvalidArgument | E>
  /** One resource by its identifier (a string), or by its identifying arguments (an object). */
  readonly get: (...args: GetParameters<Get>) => Effect.Effect<Response, InvalidArgument | E>
}

/**
 * The parameters of `get`: `id` when the resource is named by one string,
 * `args` when by several identifying arguments.
 *
 * @example
 * ```ts
 * import type { GetParameters } from "@connected-vehicle/v3/Resource"
 *
 * type ById = GetParameters<string> // [id: string, options?: CallOptions]
 * ```
 * @since 0.2.0
 * @category models
 */
export type GetParameters<Get> = [Get] extends [string] ? [id: Get, options?: CallOptions] : [args: Get, options?: CallOptions]

/**
 * The identifying arguments of a call, each a string sent in the path or in
 * a header (checked as an `Identifier` before any request; one sent in a
 * header also as a `HeaderIdentifier`).
 *
 * @example
 * ```ts
 * import type { Identifiers } from "@connected-vehicle/v3/Resource"
 *
 * const target: Identifiers<"vehicleId" | "userId"> = { vehicleId: "v1", userId: "u1" }
 * ```
 * @since 0.2.0
 * @category models
 */
export type Identifiers<K extends PropertyKey> = { readonly [P in K]: string }
