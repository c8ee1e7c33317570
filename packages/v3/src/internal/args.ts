/**
 * @internal
 */
import { Effect, Layer, Result, Schema } from "effect"
import type { HttpClient } from "effect/http"
import { fromIssue, HeaderIdentifier, Identifier, InvalidArgument, isHeaderIdentifier, isIdentifier, validate } from "@connected-vehicle/schema/InvalidArgument"
import * as Pagination from "@connected-vehicle/transport/Pagination"
import * as Transport from "@connected-vehicle/transport/Transport"

type Friendly<K> = K extends `filter[${infer F}]` ? F : K

/**
 * The arguments of a list, derived from its contract query: each wire name
 * `filter[x]` becomes `x` (`page` and `pageSize` keep their names), every
 * field optional.
 *
 * @internal
 */
export type ArgsOf<Q> = { readonly [K in keyof Q as Friendly<K>]?: Exclude<Q[K], undefined> | undefined }

/** The one mapping between argument names and wire names. */
const friendly = (wire: string): string => /^filter\[(.+)\]$/.exec(wire)?.[1] ?? wire

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** The `InvalidArgument` of arguments that cannot be read (a getter or a Proxy that throws). */
const unreadable = () => new InvalidArgument({ field: "arguments", message: "arguments: Expected an object whose fields can be read" })

/**
 * Checks list arguments against the contract query `schema` and returns the
 * wire query (only defined entries). `undefined` is `{}`; `null`, a non-object
 * or an unknown argument (other than the `extra` ones the caller handles) is
 * an `InvalidArgument`. Each argument is read once (the `extra` ones not at
 * all): only those reads are the caller's unreadable arguments, the checks
 * run on what they gave.
 *
 * @internal
 */
export const toQuery = <S extends Schema.Struct<Schema.Struct.Fields>>(schema: S, extra: ReadonlyArray<string> = []) => {
  const wireOf = new Map(Object.keys(schema.fields).map((wire) => [friendly(wire), wire]))
  const decoder = schema as unknown as Schema.ConstraintDecoder<S["Type"]>
  return (args: unknown): Effect.Effect<S["Type"], InvalidArgument> =>
    Effect.suspend(() => {
      if (args === undefined) return validate(decoder, {})
      const given: Array<readonly [string, unknown]> = []
      try {
        // inside the `try`: `Array.isArray` throws on a revoked Proxy
        if (!isRecord(args)) return validate(Schema.Record(Schema.String, Schema.Unknown), args, { field: "arguments" })
        for (const key of Object.keys(args)) if (!extra.includes(key)) given.push([key, args[key]])
      } catch {
        return Effect.fail(unreadable())
      }
      const wire: Record<string, unknown> = {}
      for (const [key, value] of given) {
        if (value === undefined) continue
        const name = wireOf.get(key)
        if (name === undefined) {
          return Effect.fail(
            new InvalidArgument({ field: key, message: `${key}: unknown argument (expected one of ${[...wireOf.keys()].join(", ")})` })
          )
        }
        wire[name] = value
      }
      return validate(decoder, wire, { rename: friendly })
    })
}

/**
 * Checks identifiers sent in a path or a header with `Identifier` (non-empty,
 * no control character, no `/`, not `.` or `..`), those sent in a header
 * (`headers`: the argument's header name) also with `HeaderIdentifier`
 * (printable ASCII, no `,`, not blank, no leading or trailing space: the
 * value arrives as given), and returns them: each read once from `args` into a
 * copy (never read again).
 *
 * @internal
 */
export const identifiers = <const K extends string>(
  args: unknown,
  keys: ReadonlyArray<K>,
  headers: Readonly<Record<string, string>> = {}
): Effect.Effect<{ readonly [P in K]: string }, InvalidArgument> =>
  Effect.suspend(() => {
    const ids = readIdentifiers(args, keys, headers)
    return Effect.isEffect(ids) ? ids : Effect.succeed(ids)
  })

/** The `InvalidArgument` of an identifier sent in `header` that a header cannot carry as it is (`HeaderIdentifier`), if it is one. */
const headerIssue = (field: string, header: string, value: string): InvalidArgument | undefined => {
  if (isHeaderIdentifier(value)) return undefined
  const result = decodeHeaderIdentifier(value)
  if (Result.isSuccess(result)) return undefined
  const error = fromIssue(result.failure.issue, { field })
  return new InvalidArgument({ field, message: `${error.message} (it is sent in the ${header} header)` })
}

const decodeHeaderIdentifier = Schema.decodeUnknownResult(HeaderIdentifier, { reportInput: true })

/**
 * {@link identifiers} read now: the valid copy itself (the common case, no
 * effect of its own), or the effect that fails with their `InvalidArgument`.
 *
 * @internal
 */
export const readIdentifiers = <const K extends string>(
  args: unknown,
  keys: ReadonlyArray<K>,
  headers: Readonly<Record<string, string>> = {}
): { readonly [P in K]: string } | Effect.Effect<{ readonly [P in K]: string }, InvalidArgument> => {
  const ids: Record<string, unknown> = {}
  try {
    // inside the `try`: `Array.isArray` throws on a revoked Proxy
    if (!isRecord(args)) return validate(Schema.Record(Schema.String, Schema.Unknown), args, { field: "arguments" }) as never
    for (const key of keys) ids[key] = args[key]
  } catch {
    return Effect.fail(unreadable())
  }
  const valid = ids as { readonly [P in K]: string }
  // the common case, all valid, without running the schema (`isIdentifier` is `Identifier`'s rule)
  if (!keys.every((key) => isIdentifier(ids[key]))) {
    return Effect.forEach(keys, (key) => validate(Identifier, ids[key], { field: key })).pipe(Effect.as(valid))
  }
  for (const key of keys) {
    const header = headers[key]
    const issue = header === undefined ? undefined : headerIssue(key, header, ids[key] as string)
    if (issue !== undefined) return Effect.fail(issue)
  }
  return valid
}

/**
 * The fields a migrated read takes from its arguments (checked by the read),
 * or the `InvalidArgument` of an argument that cannot be read: a path that is
 * not a string, a getter or a Proxy that throws.
 *
 * @internal
 */
export const readInput = (
  path: unknown,
  target: unknown,
  options: (Pagination.StreamOptions & { readonly unitSystem?: unknown }) | undefined
):
  | { readonly vehicleId: unknown; readonly userId: unknown; readonly unitSystem: unknown; readonly options: Transport.CallOptions | undefined }
  | InvalidArgument =>
{
  if (typeof path !== "string") return new InvalidArgument({ field: "path", message: "path: Expected a string" })
  let unitSystem: unknown
  try {
    unitSystem = options?.unitSystem
  } catch {
    return new InvalidArgument({ field: "options", message: "options: Expected an object whose fields can be read" })
  }
  // the call options read once too: the read's requests (one to three) get the copy
  const callOptions = Pagination.readOptions(options)
  if (callOptions instanceof InvalidArgument) return callOptions
  try {
    const given = (isRecord(target) ? target : {}) as { readonly vehicleId?: unknown; readonly userId?: unknown }
    return { vehicleId: given.vehicleId, userId: given.userId, unitSystem, options: callOptions }
  } catch {
    return new InvalidArgument({ field: "arguments", message: "arguments: Expected an object whose fields can be read" })
  }
}

/**
 * Checks one identifier (see {@link identifiers}).
 *
 * @internal
 */
export const identifier = (field: string, value: unknown): Effect.Effect<string, InvalidArgument> =>
  isIdentifier(value) ? Effect.succeed(value) : Effect.suspend(() => validate(Identifier, value, { field }))

/**
 * A layer giving the services a transport whose client is transformed.
 *
 * @internal
 */
export const transformTransport = (
  transformClient: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
): Layer.Layer<Transport.Transport, never, Transport.Transport> =>
  Layer.effect(
    Transport.Transport,
    Effect.map(
      Effect.service(Transport.Transport),
      (transport) => transformClient === undefined ? transport : { ...transport, httpClient: transformClient(transport.httpClient) }
    )
  )
