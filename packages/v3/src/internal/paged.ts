/**
 * @internal
 */
import { Effect, Stream } from "effect"
import * as Pagination from "@connected-vehicle/transport/Pagination"
import type { Result } from "@connected-vehicle/transport/Transport"
import type { InvalidArgument } from "../InvalidArgument.ts"
import { validate } from "./validate.ts"

/**
 * Paging arguments of the v3 lists.
 *
 * @internal
 */
export interface PageArgs {
  readonly page?: number | undefined
  readonly pageSize?: number | undefined
}

/**
 * Page size used by the streams when none is given (the largest allowed).
 *
 * @internal
 */
export const defaultStreamPageSize = 100

/**
 * `list` (one page) and `stream` (every item) of a v3 list whose arguments
 * are validated before any request.
 *
 * @internal
 */
export const paged = <Args extends object, P extends Pagination.NumberedPage<unknown>, E>(
  fetch: (args: Args & PageArgs) => Effect.Effect<Result<P>, E>
) => ({
  list: (args: Args & PageArgs): Effect.Effect<P, E | InvalidArgument> =>
    Effect.andThen(validate(args), Effect.map(fetch(args), (r) => r.value)),
  stream: (args: Args & { readonly pageSize?: number | undefined }): Stream.Stream<P["data"][number], E | InvalidArgument> =>
    Stream.unwrap(Effect.as(
      validate(args),
      Pagination.items((page) => fetch({ ...args, page, pageSize: args.pageSize ?? defaultStreamPageSize }))
    ))
})
