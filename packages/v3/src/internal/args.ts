/**
 * @internal
 */
import { Effect, Layer, Schema } from "effect"
import type { HttpClient } from "effect/http"
import { Identifier, InvalidArgument, isIdentifier, validate } from "@connected-vehicle/schema/InvalidArgument"
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

// `body`, or an `InvalidArgument` naming `arguments` when it throws: a getter
// or a Proxy of the arguments that throws when they are read
const guarded = <A>(body: () => Effect.Effect<A, InvalidArgument>): Effect.Effect<A, InvalidArgument> =>
  Effect.suspend(() => {
    try {
      return body()
    } catch {
      return Effect.fail(new InvalidArgument({ field: "arguments", message: "arguments: Expected an object whose fields can be read" }))
    }
  })

/**
 * Checks list arguments against the contract query `schema` and returns the
 * wire query (only defined entries). `undefined` is `{}`; `null`, a non-object
 * or an unknown argument (other than the `extra` ones the caller handles) is
 * an `InvalidArgument`.
 *
 * @internal
 */
export const toQuery = <S extends Schema.Struct<Schema.Struct.Fields>>(schema: S, extra: ReadonlyArray<string> = []) => {
  const wireOf = new Map(Object.keys(schema.fields).map((wire) => [friendly(wire), wire]))
  const decoder = schema as unknown as Schema.ConstraintDecoder<S["Type"]>
  return (args: unknown): Effect.Effect<S["Type"], InvalidArgument> =>
    guarded(() => {
      if (args === undefined) return validate(decoder, {})
      if (!isRecord(args)) return validate(Schema.Record(Schema.String, Schema.Unknown), args, { field: "arguments" })
      const wire: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(args)) {
        if (value === undefined || extra.includes(key)) continue
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
 * no control character, no `/`, not `.` or `..`).
 *
 * @internal
 */
export const identifiers = <const K extends string>(
  args: unknown,
  keys: ReadonlyArray<K>
): Effect.Effect<{ readonly [P in K]: string }, InvalidArgument> =>
  guarded(() => {
    if (!isRecord(args)) return validate(Schema.Record(Schema.String, Schema.Unknown), args, { field: "arguments" }) as never
    // the common case, all valid, without running the schema (`isIdentifier` is `Identifier`'s rule)
    if (keys.every((key) => isIdentifier(args[key]))) return Effect.succeed(args as { readonly [P in K]: string })
    return Effect.forEach(keys, (key) => validate(Identifier, args[key], { field: key })).pipe(
      Effect.as(args as { readonly [P in K]: string })
    )
  })

/**
 * Checks one identifier (see {@link identifiers}).
 *
 * @internal
 */
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
  options: { readonly unitSystem?: unknown } | undefined
): { readonly vehicleId: unknown; readonly userId: unknown; readonly unitSystem: unknown } | InvalidArgument => {
  if (typeof path !== "string") return new InvalidArgument({ field: "path", message: "path: Expected a string" })
  let unitSystem: unknown
  try {
    unitSystem = options?.unitSystem
  } catch {
    return new InvalidArgument({ field: "options", message: "options: Expected an object whose fields can be read" })
  }
  try {
    const given = (isRecord(target) ? target : {}) as { readonly vehicleId?: unknown; readonly userId?: unknown }
    return { vehicleId: given.vehicleId, userId: given.userId, unitSystem }
  } catch {
    return new InvalidArgument({ field: "arguments", message: "arguments: Expected an object whose fields can be read" })
  }
}

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
