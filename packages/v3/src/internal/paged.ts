/**
 * @internal
 */
import { Effect, Stream } from "effect"
import type { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import * as Pagination from "@connected-vehicle/transport/Pagination"
import type { CallOptions, Result } from "@connected-vehicle/transport/Transport"

/**
 * Page size used by the streams when none is given (the largest allowed).
 *
 * @internal
 */
export const defaultStreamPageSize = 100

interface Paging {
  readonly page?: number | undefined
  readonly pageSize?: number | undefined
}

/**
 * `list` (one page), `pages` (every page from `page`, default 1) and `stream`
 * (every item) of a v3 list whose arguments are checked before any request.
 * The per-call `options` apply to every request (each page of a stream).
 *
 * @internal
 */
export const paged = <A, V extends { readonly query: Paging }, P extends Pagination.NumberedPage<unknown>, E>(
  check: (args: A) => Effect.Effect<V, InvalidArgument>,
  fetch: (valid: V, options?: CallOptions) => Effect.Effect<Result<P>, E>
) => {
  const pages = (args: A, options?: CallOptions): Stream.Stream<P, E | InvalidArgument> =>
    Stream.unwrap(Effect.map(check(args), (valid) =>
      Pagination.pages(
        (page) =>
          fetch({ ...valid, query: { ...valid.query, page, pageSize: valid.query.pageSize ?? defaultStreamPageSize } }, options),
        { startPage: valid.query.page }
      )))
  return {
    list: (args: A, options?: CallOptions): Effect.Effect<P, E | InvalidArgument> =>
      Effect.flatMap(check(args), (valid) => Effect.map(fetch(valid, options), (r) => r.value)),
    pages,
    stream: (args: A, options?: CallOptions): Stream.Stream<P["data"][number], E | InvalidArgument> =>
      Stream.flatMap(pages(args, options), (page) => Stream.fromIterable(page.data))
  }
}
