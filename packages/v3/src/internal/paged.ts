/**
 * @internal
 */
import { Effect, Stream } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import * as Pagination from "@connected-vehicle/transport/Pagination"
import type { ConnectedVehicleError } from "@connected-vehicle/transport/ConnectedVehicleError"
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
 * `list` (one page), `pages` (every page from `page`, default 1, on demand)
 * and `stream` (every item, one chunk per page, on demand unless
 * `readAhead: 1`) of a v3 list whose arguments are checked before any
 * request. The per-call `options` apply to every request (each page of a
 * stream).
 *
 * @internal
 */
export const paged = <A, V extends { readonly query: Paging }, P extends Pagination.NumberedPage<unknown>, E>(
  check: (args: A) => Effect.Effect<V, InvalidArgument>,
  fetch: (valid: V, options?: CallOptions) => Effect.Effect<Result<P>, E>
) => {
  const pageArgs = (valid: V, page: number): V => ({
    ...valid,
    query: { ...valid.query, page, pageSize: valid.query.pageSize ?? defaultStreamPageSize }
  })
  const pages = (args: A, given?: CallOptions): Stream.Stream<P, E | ConnectedVehicleError | InvalidArgument> => {
    // the options read once: every page's request gets the copy
    const options = Pagination.readOptions(given)
    if (options instanceof InvalidArgument) return Stream.fail(options)
    return Stream.unwrap(Effect.map(check(args), (valid) =>
      Pagination.pages((page) => fetch(pageArgs(valid, page), options), { startPage: valid.query.page })))
  }
  return {
    list: (args: A, options?: CallOptions): Effect.Effect<P, E | InvalidArgument> =>
      Effect.flatMap(check(args), (valid) => Effect.map(fetch(valid, options), (r) => r.value)),
    pages,
    stream: (args: A, given?: Pagination.StreamOptions): Stream.Stream<P["data"][number], E | ConnectedVehicleError | InvalidArgument> => {
      const options = Pagination.readOptions(given)
      if (options instanceof InvalidArgument) return Stream.fail(options)
      const readAhead: unknown = options?.readAhead
      if (readAhead !== undefined && !Pagination.isReadAhead(readAhead)) {
        return Stream.fail(new InvalidArgument({ field: "readAhead", message: "readAhead: Expected 0 or 1" }))
      }
      // (`readAhead` is not a call option: the transport ignores it)
      return Stream.unwrap(Effect.map(check(args), (valid) =>
        Pagination.items<P["data"][number], P, E, never>(
          (page, pageOptions) => fetch(pageArgs(valid, page), Pagination.withPageOptions(options, pageOptions)),
          { startPage: valid.query.page, readAhead }
        )))
    }
  }
}
