/**
 * @internal
 */
import { Effect } from "effect"
import type { Schema } from "effect"
import type * as Pagination from "@connected-vehicle/transport/Pagination"
import type { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { CallOptions, Result } from "@connected-vehicle/transport/Transport"
import type { ArgsOf } from "./args.ts"
import { isIdentifier } from "@connected-vehicle/schema/InvalidArgument"
import { identifier, identifiers, readIdentifiers, toQuery } from "./args.ts"
import { paged } from "./paged.ts"
import type { Identifiers, Resource } from "../Resource.ts"

/** A contract endpoint's client function (`Transport.Method`), loosely. */
type Fetch = (request: any, options?: CallOptions) => Effect.Effect<Result<any>, any>

/** A contract group's client with a `list` and a `get` endpoint (`Transport.GroupClient`), loosely. */
type Client = { readonly list: Fetch; readonly get: Fetch }

type RequestOf<F> = F extends (request: infer R, ...rest: infer _) => unknown ? NonNullable<R> : never
type ValueOf<F> = F extends (...args: infer _) => Effect.Effect<Result<infer A>, infer _E> ? A : never
type ErrorOf<F> = F extends (...args: infer _) => Effect.Effect<infer _A, infer E> ? Exclude<E, InvalidArgument> : never
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
 * The list endpoint of a table: its contract `query` (arguments by their
 * friendly names, see `ArgsOf`) and its identifying arguments (`route`).
 *
 * @internal
 */
export interface ListEndpoint<F> {
  readonly query: Schema.Struct<Schema.Struct.Fields>
  readonly route?: Route<F>
}

/**
 * An endpoint of one request: its single identifier argument (`id`: the path
 * parameter it fills) or its identifying arguments (`route`).
 *
 * @internal
 */
export type CallEndpoint<F> = { readonly id: PartKeys<RequestOf<F>, "params"> } | { readonly route: Route<F> }

/**
 * The table of a resource over a contract group's client, by endpoint name:
 * the paged `list` (`list`, `pages` and `stream`), `get`, and any other
 * endpoint of the group as a method of its name.
 *
 * @internal
 */
export type Endpoints<C extends Client> =
  & { readonly list: ListEndpoint<C["list"]>; readonly get: CallEndpoint<C["get"]> }
  & { readonly [K in Exclude<keyof C, "list" | "get">]?: CallEndpoint<C[K]> }

type QueryOf<L> = L extends { readonly query: { readonly Type: infer Q } } ? Q : never

/** The arguments of a list: the friendly query arguments, and the identifying ones of its route. */
type ListArgsOf<L> = L extends { readonly route: infer R } ? ArgsOf<QueryOf<L>> & Identifiers<keyof R> : ArgsOf<QueryOf<L>>

/** The argument of a one-request endpoint: its identifier, or its identifying arguments. */
type ArgOf<E> = E extends { readonly id: string } ? string : E extends { readonly route: infer R } ? Identifiers<keyof R> : never

type Calls<C, T> = {
  readonly [K in keyof T]: K extends keyof C
    ? (arg: ArgOf<T[K]>, options?: CallOptions) => Effect.Effect<ValueOf<C[K]>, InvalidArgument | ErrorOf<C[K]>>
    : never
}

type Extra<C, T> = Exclude<keyof T, "list" | "get" | keyof C>

/**
 * The service of a table: the {@link Resource} of its `list` and `get`, and
 * one method per other endpoint of the table (its argument, its value).
 *
 * @internal
 */
export type ResourceOf<C extends Client, T extends Endpoints<C>> =
  & Resource<
    ListArgsOf<T["list"]>,
    ValueOf<C["list"]>,
    ValueOf<C["list"]> extends { readonly data: ReadonlyArray<infer I> } ? I : never,
    ArgOf<T["get"]>,
    ValueOf<C["get"]>,
    ErrorOf<C["list"]> | ErrorOf<C["get"]>
  >
  & ([Exclude<keyof T, "list" | "get">] extends [never] ? unknown : Calls<C, Omit<T, "list" | "get">>)

type AnyRoute = Readonly<Record<string, string>>

/**
 * The resource derived from a contract group's client and its table
 * ({@link Endpoints}); every argument is checked before any request.
 *
 * @internal
 */
export const resource = <C extends Client, const T extends Endpoints<C>>(
  client: C,
  endpoints: T & { readonly [K in Extra<C, T>]: never }
): ResourceOf<C, T> => {
  const listRoute = compile(endpoints.list.route ?? {})
  const listKeys = listRoute.keys
  const checkQuery = toQuery(endpoints.list.query, listKeys)
  const check = listKeys.length === 0
    ? (args: unknown) => Effect.map(checkQuery(args), (query) => ({ query }))
    : (args: unknown) =>
      Effect.flatMap(identifiers(args, listKeys, listRoute.headers), (ids) =>
        Effect.map(checkQuery(args), (query) => ({ query, ...listRoute.request(ids) })))
  const { list, pages, stream } = paged(check, client.list as PageFetch)
  const calls: Record<string, unknown> = {}
  for (const [name, endpoint] of Object.entries(endpoints as Readonly<Record<string, unknown>>)) {
    if (name !== "list") calls[name] = call((client as unknown as Record<string, Fetch>)[name]!, endpoint as AnyCall)
  }
  return { ...calls, list, pages, stream } as never
}

type PageFetch = (
  request: { readonly query: {} },
  options?: CallOptions
) => Effect.Effect<Result<Pagination.NumberedPage<unknown>>, unknown>

type AnyCall = { readonly id: string } | { readonly route: AnyRoute }

const valueOf = (result: Result<unknown>) => result.value

/**
 * One request: its identifier or identifying arguments checked when the
 * effect runs (valid ones without an effect step of their own), the
 * endpoint's value.
 */
const call = (fetch: Fetch, endpoint: AnyCall) => {
  if ("id" in endpoint) {
    const name = endpoint.id
    const send = (id: string, options: CallOptions | undefined) => Effect.map(fetch({ params: { [name]: id } }, options), valueOf)
    return (id: unknown, options?: CallOptions) =>
      Effect.suspend(() => isIdentifier(id) ? send(id, options) : Effect.flatMap(identifier(name, id), (valid) => send(valid, options)))
  }
  const route = compile(endpoint.route)
  const send = (ids: Readonly<Record<string, string>>, options: CallOptions | undefined) => Effect.map(fetch(route.request(ids), options), valueOf)
  return (args: unknown, options?: CallOptions) =>
    Effect.suspend(() => {
      const ids = readIdentifiers(args, route.keys, route.headers)
      return Effect.isEffect(ids) ? Effect.flatMap(ids, (valid) => send(valid, options)) : send(ids, options)
    })
}

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
    /** the header each argument sent in one is sent in */
    headers: Object.fromEntries(entries.filter((entry) => entry.part === "headers").map((entry) => [entry.arg, entry.name])),
    request: (ids: Readonly<Record<string, string>>) => {
      const parts: { params?: Record<string, string>; headers?: Record<string, string> } = {}
      for (const { arg, name, part } of entries) (parts[part] ??= {})[name] = ids[arg]!
      return parts
    }
  }
}
