/**
 * Lists as Streams. Pages are fetched on demand, one at a time, so memory
 * stays proportional to one page whatever the total.
 *
 * - v3 lists (page-number paging): the next page is requested when
 *   `links.next` is not null and `pageNumber * pageSize < totalCount`; an
 *   empty page never decides anything.
 * - legacy vehicle list (offset/limit paging): the next offset is
 *   `offset + vehicles.length` while that is below `paging.count` (the total).
 *
 * @since 0.1.0
 */
import { Effect, Option, Stream } from "effect"
import type { Result } from "./Transport.ts"

/**
 * The parts of a v3 list page that paging reads.
 *
 * @example
 * ```ts
 * import type { NumberedPage } from "@connected-vehicle/transport/Pagination"
 *
 * const last: NumberedPage<string> = {
 *   data: ["a"],
 *   meta: { pageNumber: 2, pageSize: 1, totalCount: 2 },
 *   links: { next: null }
 * }
 * ```
 * @since 0.1.0
 */
export interface NumberedPage<A> {
  readonly data: ReadonlyArray<A>
  readonly meta: { readonly pageNumber: number; readonly pageSize: number; readonly totalCount: number }
  readonly links: { readonly next: string | null }
}

const hasNext = (page: NumberedPage<unknown>): boolean =>
  page.links.next !== null && page.meta.pageNumber * page.meta.pageSize < page.meta.totalCount

/**
 * Every page of a v3 list, starting at `startPage` (default 1).
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ManagementApi } from "@connected-vehicle/schema/Api"
 * import * as Pagination from "@connected-vehicle/transport/Pagination"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 *
 * const program = Effect.gen(function*() {
 *   const webhooks = yield* Transport.client(ManagementApi, "webhooks")
 *   const pages = Pagination.pages((page) => webhooks.list({ query: { page, pageSize: 100 } }))
 *   return yield* Stream.runCount(pages)
 * })
 * ```
 * @since 0.1.0
 */
export const pages = <P extends NumberedPage<unknown>, E, R>(
  fetch: (page: number) => Effect.Effect<Result<P>, E, R>,
  options?: { readonly startPage?: number | undefined }
): Stream.Stream<P, E, R> =>
  Stream.paginate(options?.startPage ?? 1, (page: number) =>
    Effect.map(fetch(page), ({ value }) => [[value], hasNext(value) ? Option.some(page + 1) : Option.none<number>()] as const))

/**
 * Every item of a v3 list, fetched a page at a time.
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { VehicleApi } from "@connected-vehicle/schema/Api"
 * import * as Pagination from "@connected-vehicle/transport/Pagination"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 *
 * const program = Effect.gen(function*() {
 *   const connections = yield* Transport.client(VehicleApi, "connections")
 *   const ids = Pagination.items((page) => connections.list({ query: { page, pageSize: 50 } })).pipe(
 *     Stream.map((connection) => connection.id)
 *   )
 *   return yield* Stream.runCollect(ids)
 * })
 * ```
 * @since 0.1.0
 */
export const items = <A, P extends NumberedPage<A>, E, R>(
  fetch: (page: number) => Effect.Effect<Result<P>, E, R>,
  options?: { readonly startPage?: number | undefined }
): Stream.Stream<P["data"][number], E, R> =>
  Stream.paginate(options?.startPage ?? 1, (page: number) =>
    Effect.map(fetch(page), ({ value }) => [value.data, hasNext(value) ? Option.some(page + 1) : Option.none<number>()] as const))

/**
 * The parts of a legacy vehicle-list page that paging reads.
 *
 * @example
 * ```ts
 * import type { OffsetPage } from "@connected-vehicle/transport/Pagination"
 *
 * const first: OffsetPage = { paging: { count: 3, offset: 0 }, vehicles: ["v0", "v1"] }
 * ```
 * @since 0.1.0
 */
export interface OffsetPage {
  readonly paging: { readonly count: number; readonly offset: number }
  readonly vehicles: ReadonlyArray<string>
}

/**
 * Every vehicle id of the legacy list (`GET /v2.0/vehicles`), `limit` per
 * request (default 50, the maximum of section 8).
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { LegacyApi } from "@connected-vehicle/schema/Api"
 * import * as Pagination from "@connected-vehicle/transport/Pagination"
 * import * as Transport from "@connected-vehicle/transport/Transport"
 *
 * const program = Effect.gen(function*() {
 *   const legacy = yield* Transport.client(LegacyApi, "legacy")
 *   const ids = Pagination.offsetItems((offset, limit) => legacy.vehicles({ query: { offset, limit } }))
 *   return yield* Stream.runCollect(ids)
 * })
 * ```
 * @since 0.1.0
 */
export const offsetItems = <E, R>(
  fetch: (offset: number, limit: number) => Effect.Effect<Result<OffsetPage>, E, R>,
  options?: { readonly limit?: number | undefined }
): Stream.Stream<string, E, R> => {
  const limit = options?.limit ?? 50
  return Stream.paginate(0, (offset: number) =>
    Effect.map(fetch(offset, limit), ({ value }) => {
      const next = value.paging.offset + value.vehicles.length
      return [
        value.vehicles,
        value.vehicles.length > 0 && next < value.paging.count ? Option.some(next) : Option.none<number>()
      ] as const
    }))
}
