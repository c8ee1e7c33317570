/**
 * Page envelopes of section 2.7: `meta` variants and the list `links` object.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * List `links`: `prev` is null on the first page, `next` on the last.
 *
 * @since 0.1.0
 */
export const PageLinks = Schema.Struct({
  self: Schema.String,
  first: Schema.String,
  prev: Schema.NullOr(Schema.String),
  next: Schema.NullOr(Schema.String),
  last: Schema.String
})

/**
 * @since 0.1.0
 */
export type PageLinks = typeof PageLinks.Type

/**
 * `meta` of the signals list.
 *
 * @since 0.1.0
 */
export const PageMeta = Schema.Struct({
  pageNumber: Schema.Int,
  pageSize: Schema.Int,
  totalCount: Schema.Int
})

/**
 * @since 0.1.0
 */
export type PageMeta = typeof PageMeta.Type

/**
 * `meta` of the connections, subscriptions and webhooks lists.
 *
 * @since 0.1.0
 */
export const OrderedPageMeta = Schema.Struct({
  ...PageMeta.fields,
  orderBy: Schema.String,
  orderDirection: Schema.String
})

/**
 * @since 0.1.0
 */
export type OrderedPageMeta = typeof OrderedPageMeta.Type

/**
 * `meta` of the compatibility list (`page` is always 1, `totalCount` equals `pageSize`).
 *
 * @since 0.1.0
 */
export const CompatibilityMeta = Schema.Struct({
  page: Schema.Int,
  pageSize: Schema.Int,
  totalCount: Schema.Int
})

/**
 * Page-number paging bounds of the v3 lists (page >= 1, page size 1..100).
 *
 * @since 0.1.0
 */
export const PageNumber = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/**
 * @since 0.1.0
 */
export const PageSize = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))

/**
 * Builds a list envelope `{ data: Item[], meta, links }`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Page, PageMeta } from "@connected-vehicle/schema/Pagination"
 *
 * const Numbers = Page(Schema.Number, PageMeta)
 * ```
 * @since 0.1.0
 */
export const Page = <Item extends Schema.Top, Meta extends Schema.Top>(item: Item, meta: Meta) =>
  Schema.Struct({ data: Schema.Array(item), meta, links: PageLinks })
