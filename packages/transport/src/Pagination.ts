/**
 * Lists as Streams. `pages` fetches pages on demand, one at a time; `items`
 * emits each page's items as one chunk, also on demand by default: a page is
 * requested only when the consumer pulls past the previous one, so a stream
 * stopped early sends no request it does not need (the service counts every
 * request against rate limits and billing). `readAhead: 1` (opt-in) requests
 * the next page when the current one is handed to the consumer, overlapping
 * the fetch with the consumer's work. Memory stays proportional to one page
 * (two with the read-ahead) whatever the total.
 *
 * - v3 lists (page-number paging): the next page is requested when
 *   `links.next` is not null and `pageNumber * pageSize < totalCount`; an
 *   empty page ends the list when it says none follow, and fails it with an
 *   `InvalidResponse` when it says more do (ending would drop them unseen,
 *   going on could loop).
 * - legacy vehicle list (offset/limit paging): the next offset is
 *   `offset + vehicles.length` while that is below `paging.count` (the total);
 *   an empty page below `paging.count` fails the stream likewise.
 *
 * A page that is not the one asked for (its `meta.pageNumber`, or its
 * `paging.offset`, differs: a proxy or cache that drops the query string
 * answers the first page again and again) fails the stream with an
 * `InvalidResponse`, before any of its items is emitted: paging never loops
 * or emits an item twice on such a page.
 *
 * @since 0.1.0
 */
import { Array as Arr, Cause, Channel, Effect, Fiber, Option, Stream } from "effect"
import type { Pull } from "effect"
import type { HttpClientResponse } from "effect/http"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { ConnectedVehicleError, InvalidResponse } from "./ConnectedVehicleError.ts"
import * as Hooks from "./internal/hooks.ts"
import { withoutCredentials } from "./internal/url.ts"
import type { CallOptions, Result } from "./Transport.ts"

/**
 * How many pages an item stream requests ahead of its consumer: `0` (the
 * default of `items`) requests a page only when the consumer asks for more
 * items; `1` starts the next page's request as soon as the current page is
 * handed to the consumer, so the fetch overlaps the consumer's work (a
 * consumer that spends time on each page finishes sooner) at the cost of
 * requests a stream stopped early does not use (one page, or two when the
 * consumer was waiting).
 *
 * @example
 * ```ts
 * import type { ReadAhead } from "@connected-vehicle/transport/Pagination"
 *
 * const overlapped: ReadAhead = 1
 * ```
 * @since 0.1.0
 * @category models
 */
export type ReadAhead = 0 | 1

/**
 * Whether `u` is a {@link ReadAhead} (`0` or `1`).
 *
 * @example
 * ```ts
 * import { isReadAhead } from "@connected-vehicle/transport/Pagination"
 *
 * isReadAhead(1) // true
 * isReadAhead(2) // false
 * ```
 * @since 0.1.0
 * @category guards
 */
export const isReadAhead = (u: unknown): u is ReadAhead => u === 0 || u === 1

/**
 * Options of an item stream: the per-call options of every page request, and
 * the stream's {@link ReadAhead} (default `0`: on demand).
 *
 * @example
 * ```ts
 * import type { StreamOptions } from "@connected-vehicle/transport/Pagination"
 *
 * const options: StreamOptions = { timeout: "5 seconds", readAhead: 1 }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface StreamOptions extends CallOptions {
  readonly readAhead?: ReadAhead | undefined
}

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
 * @category models
 */
export interface NumberedPage<A> {
  readonly data: ReadonlyArray<A>
  readonly meta: { readonly pageNumber: number; readonly pageSize: number; readonly totalCount: number }
  readonly links: { readonly next: string | null }
}

const hasNext = (page: NumberedPage<unknown>): boolean =>
  page.data.length > 0 && page.links.next !== null && page.meta.pageNumber * page.meta.pageSize < page.meta.totalCount

/** The `InvalidResponse` of a page that is not the one asked for. */
const notAsked = (result: Result<unknown>, description: string): ConnectedVehicleError =>
  new ConnectedVehicleError({
    reason: new InvalidResponse({
      method: result.request.method,
      url: withoutCredentials(result.request.url, result.request.urlParams),
      status: result.status,
      ...(result.requestId === undefined ? {} : { requestId: result.requestId }),
      description
    })
  })

/**
 * `result`'s page when it is page `asked`, else the `InvalidResponse` that
 * says so; so too for an empty page that says more items follow (its
 * `links.next` set and `pageNumber × pageSize` below its `totalCount`):
 * ending there would drop those items without a word, going on could loop.
 */
const numbered = <P extends NumberedPage<unknown>>(asked: number, result: Result<P>): Effect.Effect<P, ConnectedVehicleError> => {
  const refused = refusalOf(asked, result.value)
  return refused === undefined ? Effect.succeed(result.value) : Effect.fail(notAsked(result, refused))
}

/** Why `page` is refused as page `asked` (see {@link numbered}), or `undefined`. */
const refusalOf = (asked: number, page: NumberedPage<unknown>): string | undefined => {
  const { data, links, meta } = page
  if (meta.pageNumber !== asked) return `page ${asked} was asked for and page ${meta.pageNumber} came (a proxy or cache that drops the query string?)`
  if (data.length === 0 && links.next !== null && meta.pageNumber * meta.pageSize < meta.totalCount) {
    return `page ${asked} is empty, yet its totalCount (${meta.totalCount}) and links.next say more items follow`
  }
  return undefined
}

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
 * @category pagination
 */
export const pages = <P extends NumberedPage<unknown>, E, R>(
  fetch: (page: number) => Effect.Effect<Result<P>, E, R>,
  options?: { readonly startPage?: number | undefined }
): Stream.Stream<P, E | ConnectedVehicleError, R> =>
  Stream.paginate(options?.startPage ?? 1, (page: number) =>
    Effect.map(
      Effect.flatMap(fetch(page), (result) => numbered(page, result)),
      (value) => [[value], hasNext(value) ? Option.some(page + 1) : Option.none<number>()] as const
    ))

/**
 * What {@link items} gives the request of each page (to be merged into the
 * call's `CallOptions`): an `onResponse` that watches the head of the page's
 * response.
 *
 * @example
 * ```ts
 * import type { PageCallOptions } from "@connected-vehicle/transport/Pagination"
 *
 * const none: PageCallOptions = {}
 * ```
 * @since 0.1.0
 * @category models
 */
export interface PageCallOptions {
  readonly onResponse?: ((response: HttpClientResponse.HttpClientResponse) => Effect.Effect<void>) | undefined
}

/**
 * The call's options merged with the {@link PageCallOptions} that
 * {@link items} gives a page's request: the call's own `onResponse` runs
 * first (its failure, defect or throw ignored), then the page's.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { withPageOptions } from "@connected-vehicle/transport/Pagination"
 *
 * const options = withPageOptions({ maxRetries: 1 }, { onResponse: () => Effect.void })
 * ```
 * @since 0.2.0
 * @category utils
 */
export const withPageOptions = (
  callOptions: CallOptions | undefined,
  pageOptions: PageCallOptions | undefined
): CallOptions | undefined => {
  const onResponse = Hooks.andThen(callOptions?.onResponse, pageOptions?.onResponse)
  return onResponse === callOptions?.onResponse ? callOptions : { ...callOptions, onResponse }
}

const shallowCopy = <A>(value: A): A =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? { ...value } : value

/**
 * The caller's options of a stream read once, for a stream that passes them
 * to the request of every page: a copy of their fields (`timeout`,
 * `maxRetries`, `onResponse`, `retryWhile`, `retryWait`, `readAhead`, and
 * copies of `retry` and `rateLimit`), so that a getter is not read again at each page; the
 * `InvalidArgument` naming `options` of options that cannot be read (a
 * getter or a Proxy that throws). `undefined` and what is not an object are
 * returned as they are (the transport refuses the latter at the first page).
 *
 * @example
 * ```ts
 * import { readOptions } from "@connected-vehicle/transport/Pagination"
 *
 * const options = readOptions({ timeout: "5 seconds", readAhead: 1 }) // a copy
 * ```
 * @since 0.2.0
 * @category utils
 */
export const readOptions = (options: StreamOptions | undefined): StreamOptions | undefined | InvalidArgument => {
  try {
    // inside the `try`: `Array.isArray` throws on a revoked Proxy
    if (typeof options !== "object" || options === null || Array.isArray(options)) return options
    const { maxRetries, onResponse, readAhead, retryWait, retryWhile, timeout } = options
    const copy: StreamOptions = {
      timeout,
      maxRetries,
      retry: shallowCopy(options.retry),
      rateLimit: shallowCopy(options.rateLimit),
      onResponse,
      ...(retryWhile === undefined ? {} : { retryWhile }),
      ...(retryWait === undefined ? {} : { retryWait }),
      readAhead
    }
    return copy
  } catch {
    return new InvalidArgument({ field: "options", message: "options: Expected an object whose fields can be read" })
  }
}

/**
 * Every item of a v3 list, fetched a page at a time and emitted as one chunk
 * per page. With `readAhead: 0` (the default) a page is requested only when
 * the consumer pulls past the current page: taking 5 items of pages of 2
 * sends 3 requests. With `readAhead: 1` (opt-in) the next page is requested
 * as soon as the current page is handed to the consumer (at most one request
 * ahead, at most two pages held). A read-ahead request that fails fails the
 * stream after the current page's items; one still running when the stream
 * ends early (e.g. `Stream.take`) is interrupted, but it may already have
 * reached the service.
 *
 * With `readAhead: 1`, when the consumer is already waiting for a page, the
 * page after it is requested as soon as that page's response arrives, before
 * it is decoded (when the last page read says there is one), so the service
 * prepares it meanwhile. `fetch` receives {@link PageCallOptions} for that
 * (an `onResponse`, see `CallOptions`): merge them into the call's options
 * ({@link withPageOptions}).
 * A page requested that way that turns out not to exist (the list shrank) is
 * dropped unread (an `onResponse` of the caller's still sees its response).
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
 *   const ids = Pagination.items((page, options) => connections.list({ query: { page, pageSize: 50 } }, options)).pipe(
 *     Stream.map((connection) => connection.id)
 *   )
 *   return yield* Stream.runCollect(ids)
 * })
 * ```
 * @since 0.1.0
 * @category pagination
 */
export const items = <A, P extends NumberedPage<A>, E, R>(
  fetch: (page: number, options?: PageCallOptions) => Effect.Effect<Result<P>, E, R>,
  options?: { readonly startPage?: number | undefined; readonly readAhead?: ReadAhead | undefined }
): Stream.Stream<P["data"][number], E | ConnectedVehicleError, R> => {
  const startPage = options?.startPage ?? 1
  if (options?.readAhead !== 1) {
    return Stream.paginate(startPage, (page: number) =>
      Effect.map(
        Effect.flatMap(fetch(page), (result) => numbered(page, result)),
        (value) => [value.data, hasNext(value) ? Option.some(page + 1) : Option.none<number>()] as const
      ))
  }
  type Items = Pull.Pull<readonly [A, ...Array<A>], E | ConnectedVehicleError, void, R>
  return Stream.fromChannel(Channel.fromTransform((_, scope) =>
    Effect.map(Effect.context<R>(), (context) => {
      let first = true
      // the requests started and not handed over yet, by page (interrupted
      // with the stream's scope): the next page, and the one after it when
      // it was started at the head of the next page's response
      const started = new Map<number, Fiber.Fiber<Result<P>, E>>()
      // the page the consumer gets next, the one it waits for (0: none), and
      // the last page the last page read announces (0: unknown yet)
      let next = startPage
      let waitingFor = 0
      let lastAnnounced = 0
      const start = (page: number): Effect.Effect<void> =>
        Effect.map(
          // the stream's context, whole (not merged into the one of the
          // attempt whose response head starts it)
          Effect.forkIn(Effect.updateContext(fetch(page, { onResponse: onHead(page) }), () => context), scope, { startImmediately: true }),
          (fiber) => {
            started.set(page, fiber)
          }
        )
      // the response of `page` is in: if the consumer waits for it, the
      // service is asked for the page after it now (before this one is decoded)
      const onHead = (page: number) => (response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> =>
        Effect.suspend(() =>
          response.status === 200 && waitingFor === page && page < lastAnnounced && !started.has(page + 1)
            // undici writes a request from the event loop's next turn: let it
            // go out before this page is decoded
            ? Effect.andThen(start(page + 1), Effect.yieldNow)
            : Effect.void
        )
      const received = (page: number) => (result: Result<P>): Items => {
        waitingFor = 0
        const value = result.value
        const data = value.data as ReadonlyArray<A>
        if (refusalOf(page, value) !== undefined) {
          for (const fiber of started.values()) fiber.interruptUnsafe()
          started.clear()
          return Effect.flatMap(numbered(page, result), () => Cause.done())
        }
        if (!hasNext(value)) {
          // a page requested early that is not there after all
          for (const fiber of started.values()) fiber.interruptUnsafe()
          started.clear()
          return Arr.isReadonlyArrayNonEmpty(data) ? Effect.succeed(data) : Cause.done()
        }
        next = page + 1
        lastAnnounced = Math.ceil(value.meta.totalCount / value.meta.pageSize)
        const emit = Arr.isReadonlyArrayNonEmpty(data) ? Effect.succeed(data) : pull
        return started.has(next) ? emit : Effect.andThen(start(next), emit)
      }
      const pull: Items = Effect.suspend(() => {
        if (first) {
          first = false
          waitingFor = startPage
          return Effect.flatMap(fetch(startPage, { onResponse: onHead(startPage) }), received(startPage))
        }
        const fiber = started.get(next)
        if (fiber === undefined) return Cause.done()
        started.delete(next)
        waitingFor = next
        return Effect.flatMap(Fiber.join(fiber), received(next))
      })
      return pull
    })
  ))
}

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
 * @category models
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
 * @category pagination
 */
export const offsetItems = <E, R>(
  fetch: (offset: number, limit: number) => Effect.Effect<Result<OffsetPage>, E, R>,
  options?: { readonly limit?: number | undefined }
): Stream.Stream<string, E | ConnectedVehicleError, R> => {
  const limit = options?.limit ?? 50
  return Stream.paginate(0, (offset: number) =>
    Effect.flatMap(fetch(offset, limit), (result) => {
      const { value } = result
      if (value.paging.offset !== offset) {
        return Effect.fail(notAsked(result, `offset ${offset} was asked for and offset ${value.paging.offset} came (a proxy or cache that drops the query string?)`))
      }
      if (value.vehicles.length === 0 && offset < value.paging.count) {
        return Effect.fail(notAsked(result, `offset ${offset} came empty, yet its paging.count (${value.paging.count}) says more vehicles follow`))
      }
      const next = offset + value.vehicles.length
      return Effect.succeed([
        value.vehicles,
        value.vehicles.length > 0 && next < value.paging.count ? Option.some(next) : Option.none<number>()
      ] as const)
    }))
}
