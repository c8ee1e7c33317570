/**
 * @internal
 */
import { Effect } from "effect"
import type { Schema } from "effect"
import type * as Pagination from "@connected-vehicle/transport/Pagination"
import type { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { CallOptions, Result } from "@connected-vehicle/transport/Transport"
import type { ArgsOf } from "./args.ts"
import { identifier, identifiers, toQuery } from "./args.ts"
import { paged } from "./paged.ts"
import type { Resource } from "../Resource.ts"

/** A contract endpoint's client function (`Transport.Method`), loosely. */
type Fetch = (request: any, options?: CallOptions) => Effect.Effect<Result<any>, any>

type RequestOf<F> = F extends (request: infer R, ...rest: infer _) => unknown ? NonNullable<R> : never
type ValueOf<F> = F extends (...args: infer _) => Effect.Effect<Result<infer A>, infer _E> ? A : never
type ErrorOf<F> = F extends (...args: infer _) => Effect.Effect<infer _A, infer E> ? E : never
type PartKeys<R, P extends "params" | "headers"> = R extends { readonly [K in P]?: infer T } ? keyof NonNullable<T> & string
  : never

/**
 * Where each identifying argument goes in the endpoint's request:
 * `{ vehicleId: "params.vehicleId", userId: "headers.sc-user-id" }`. Every
 * one is checked as an identifier before any request.
 *
 * @internal
 */
export type Route<F> = {
  readonly [arg: string]: `params.${PartKeys<RequestOf<F>, "params">}` | `headers.${PartKeys<RequestOf<F>, "headers">}`
}

/**
 * The table of one resource over a contract group's client (its `list` and
 * `get` endpoints): the list's contract `query` (arguments by their friendly
 * names, see `ArgsOf`) and the identifying arguments of the list (`route`);
 * `get`'s single identifier argument (`id`: the path parameter it fills) or
 * its identifying arguments (`route`).
 *
 * @internal
 */
export interface Table<L extends Fetch, G extends Fetch, Q, LR extends Route<L>, GI extends string, GR extends Route<G>> {
  readonly list: { readonly query: Q; readonly route?: LR }
  readonly get: { readonly id: GI } | { readonly route: GR }
}

/** The identifying arguments of a route (none when it is not given). */
type Identifying<R> = string extends keyof R ? {} : { readonly [K in keyof R]: string }

type AnyRoute = Readonly<Record<string, string>>

/**
 * The resource derived from a contract group's client and its {@link Table};
 * every argument is checked before any request.
 *
 * @internal
 */
export const resource = <
  L extends Fetch,
  G extends Fetch,
  Q extends Schema.Struct<Schema.Struct.Fields>,
  const LR extends Route<L> = {},
  const GI extends PartKeys<RequestOf<G>, "params"> = never,
  const GR extends Route<G> = never
>(
  client: { readonly list: L; readonly get: G },
  table: Table<L, G, Q, LR, GI, GR>
): Resource<
  ArgsOf<Q["Type"]> & Identifying<LR>,
  ValueOf<L>,
  ValueOf<L> extends { readonly data: ReadonlyArray<infer I> } ? I : never,
  [GI] extends [never] ? Identifying<GR> : string,
  ValueOf<G>,
  Exclude<ErrorOf<L> | ErrorOf<G>, InvalidArgument>
> => {
  const listRoute = compile(table.list.route ?? {})
  const listKeys = listRoute.keys
  const checkQuery = toQuery(table.list.query, listKeys)
  const check = listKeys.length === 0
    ? (args: unknown) => Effect.map(checkQuery(args), (query) => ({ query }))
    : (args: unknown) =>
      Effect.flatMap(identifiers(args, listKeys), (ids) =>
        Effect.map(checkQuery(args), (query) => ({ query, ...listRoute.request(ids) })))
  const { list, pages, stream } = paged(check, client.list as PageFetch)
  const getTable: { readonly id: string } | { readonly route: AnyRoute } = table.get
  const getRoute = compile("route" in getTable ? getTable.route : {})
  const get = "id" in getTable
    ? (id: unknown, options?: CallOptions) =>
      identifier(getTable.id, id).pipe(
        Effect.flatMap((valid) => client.get({ params: { [getTable.id]: valid } }, options)),
        Effect.map((r) => r.value)
      )
    : (args: unknown, options?: CallOptions) =>
      identifiers(args, getRoute.keys).pipe(
        Effect.flatMap((ids) => client.get(getRoute.request(ids), options)),
        Effect.map((r) => r.value)
      )
  return { list, pages, stream, get } as never
}

type PageFetch = (
  request: { readonly query: {} },
  options?: CallOptions
) => Effect.Effect<Result<Pagination.NumberedPage<unknown>>, unknown>

/**
 * A route, read once: its argument names, and the `params` and `headers` of
 * a request from the checked identifying arguments (only the parts used).
 */
const compile = (route: AnyRoute) => {
  const entries = Object.entries(route).map(([arg, target]) => {
    const dot = target.indexOf(".")
    return { arg, part: target.slice(0, dot) as "params" | "headers", name: target.slice(dot + 1) }
  })
  return {
    keys: entries.map((entry) => entry.arg),
    request: (ids: Readonly<Record<string, string>>) => {
      const parts: { params?: Record<string, string>; headers?: Record<string, string> } = {}
      for (const { arg, name, part } of entries) (parts[part] ??= {})[name] = ids[arg]!
      return parts
    }
  }
}
