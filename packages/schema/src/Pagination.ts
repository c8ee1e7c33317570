/**
 * Page envelopes of section 2.7: `meta` variants and the list `links` object.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * List `links`: `prev` is null on the first page, `next` on the last.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { PageLinks } from "@connected-vehicle/schema/Pagination"
 *
 * const isPageLinks = Schema.is(PageLinks)
 * ```
 * @category schemas
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
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { PageLinks } from "@connected-vehicle/schema/Pagination"
 *
 * const isPageLinks: (u: unknown) => u is PageLinks = Schema.is(PageLinks)
 * ```
 * @category models
 * @since 0.1.0
 */
export type PageLinks = typeof PageLinks.Type

/**
 * `meta` of the signals list: `pageNumber` at least 1 (pages count from 1),
 * `pageSize` and `totalCount` at least 0 (the spec bounds the page size a
 * request asks for, 1 to 100, not the one a response reports: an empty page
 * may report 0); another value is no page a client can follow (an
 * `InvalidResponse`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { PageMeta } from "@connected-vehicle/schema/Pagination"
 *
 * const isPageMeta = Schema.is(PageMeta)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const PageMeta = Schema.Struct({
  pageNumber: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  pageSize: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  totalCount: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
})

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { PageMeta } from "@connected-vehicle/schema/Pagination"
 *
 * const isPageMeta: (u: unknown) => u is PageMeta = Schema.is(PageMeta)
 * ```
 * @category models
 * @since 0.1.0
 */
export type PageMeta = typeof PageMeta.Type

/**
 * `meta` of the connections, subscriptions and webhooks lists.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { OrderedPageMeta } from "@connected-vehicle/schema/Pagination"
 *
 * const isOrderedPageMeta = Schema.is(OrderedPageMeta)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const OrderedPageMeta = Schema.Struct({
  ...PageMeta.fields,
  orderBy: Schema.String,
  orderDirection: Schema.String
})

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { OrderedPageMeta } from "@connected-vehicle/schema/Pagination"
 *
 * const isOrderedPageMeta: (u: unknown) => u is OrderedPageMeta = Schema.is(OrderedPageMeta)
 * ```
 * @category models
 * @since 0.1.0
 */
export type OrderedPageMeta = typeof OrderedPageMeta.Type

/**
 * `meta` of the compatibility list (`page` is always 1, `totalCount` equals
 * `pageSize`): `page` at least 1, `pageSize` and `totalCount` at least 0.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { CompatibilityMeta } from "@connected-vehicle/schema/Pagination"
 *
 * const isCompatibilityMeta = Schema.is(CompatibilityMeta)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const CompatibilityMeta = Schema.Struct({
  page: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  // 0 when nothing matches: the whole list is one page
  pageSize: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  totalCount: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
})

/**
 * Page-number paging bounds of the v3 lists (page >= 1, page size 1..100).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { PageNumber } from "@connected-vehicle/schema/Pagination"
 *
 * const isPageNumber = Schema.is(PageNumber)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const PageNumber = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { PageSize } from "@connected-vehicle/schema/Pagination"
 *
 * const isPageSize = Schema.is(PageSize)
 * ```
 * @category schemas
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
 * @category constructors
 * @since 0.1.0
 */
export const Page = <Item extends Schema.Top, Meta extends Schema.Top>(item: Item, meta: Meta) =>
  Schema.Struct({ data: Schema.Array(item), meta, links: PageLinks })
