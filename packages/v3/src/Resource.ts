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
 * A paged v3 resource: one page, every page, every item, one resource by its
 * identifier (`Get`: a string, or the identifying arguments). The shape of
 * the `Connections`, `Subscriptions`, `Webhooks` (and, with required list
 * arguments, `Signals`) services, derived from the contract's `list` and
 * `get` endpoints of their group.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import type { Resource } from "@connected-vehicle/v3/Resource"
 *
 * const count = <Args, Page, Item, Get, Response, E>(resource: Resource<Args, Page, Item, Get, Response, E>, args: Args) =>
 *   Stream.runCount(resource.stream(args))
 * ```
 * @since 0.2.0
 * @category models
 */
export interface Resource<ListArgs, Page, Item, Get, Response, E = never> {
  /** One page. */
  readonly list: (args?: ListArgs, options?: CallOptions) => Effect.Effect<Page, InvalidArgument | E>
  /** Every page from `page` (default 1), `pageSize` (default 100) items each, fetched on demand. */
  readonly pages: (args?: ListArgs, options?: CallOptions) => Stream.Stream<Page, InvalidArgument | E>
  /** Every item, one chunk per page; each page requested when the consumer needs it (`readAhead: 1`: the next page is requested as the current one is handed on). */
  readonly stream: (args?: ListArgs, options?: Pagination.StreamOptions) => Stream.Stream<Item, InvalidArgument | E>
  /** One resource by its identifier. */
  readonly get: (id: Get, options?: CallOptions) => Effect.Effect<Response, InvalidArgument | E>
}

