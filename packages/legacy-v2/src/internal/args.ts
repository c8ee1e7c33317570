/**
 * @internal
 */
import { Effect, Schema } from "effect"
import { LegacyVehiclesQuery } from "@connected-vehicle/schema/Api"
import { Identifier, InvalidArgument, isIdentifier, validate } from "@connected-vehicle/schema/InvalidArgument"
import { LegacyPath, UnitSystem } from "@connected-vehicle/schema/Legacy"

/**
 * Checks one argument against a contract schema.
 *
 * @internal
 */
export const checkValue = <S extends Schema.ConstraintDecoder<unknown>>(field: string, schema: S, value: unknown) =>
  Effect.suspend(() => validate(schema, value, { field }))

/**
 * Checks an identifier sent in the path with `Identifier` (non-empty, no
 * control character, no `/`, not `.` or `..`).
 *
 * @internal
 */
export const checkIdentifier = (field: string, value: unknown): Effect.Effect<string, InvalidArgument> =>
  isIdentifier(value) ? Effect.succeed(value) : checkValue(field, Identifier, value)

/**
 * Whether a value is a `UnitSystem` (`metric` or `imperial`).
 *
 * @internal
 */
export const isUnitSystem = Schema.is(UnitSystem)

/**
 * Checks the unit system of a read (the common case without running the
 * schema, which still names the field of an invalid one).
 *
 * @internal
 */
export const checkUnitSystem = (value: unknown): Effect.Effect<UnitSystem, InvalidArgument> =>
  isUnitSystem(value) ? Effect.succeed(value) : checkValue("unitSystem", UnitSystem, value)

/** The `InvalidArgument` of arguments or options whose fields cannot be read (a getter or a Proxy that throws). */
export const unreadable = (field: string): InvalidArgument =>
  new InvalidArgument({ field, message: `${field}: Expected an object whose fields can be read` })

/**
 * The unit system of a read's options (`fallback` when they name none), or the
 * `InvalidArgument` of options that cannot be read.
 *
 * @internal
 */
export const unitSystemOf = (options: { readonly unitSystem?: UnitSystem | undefined } | undefined, fallback: UnitSystem) => {
  try {
    return options?.unitSystem ?? fallback
  } catch {
    return unreadable("options")
  }
}

/**
 * Checks the vehicle-list arguments against `LegacyVehiclesQuery` (`undefined`
 * is `{}`); only the defined entries are kept.
 *
 * @internal
 */
export const checkListArgs = (args: unknown): Effect.Effect<typeof LegacyVehiclesQuery.Type, InvalidArgument> =>
  Effect.suspend(() => {
    if (args === undefined) return Effect.succeed({})
    if (typeof args !== "object" || args === null) return validate(LegacyVehiclesQuery, args, { field: "arguments" })
    let defined: Record<string, unknown>
    try {
      defined = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined))
    } catch {
      return Effect.fail(unreadable("arguments"))
    }
    for (const key of Object.keys(defined)) {
      if (!(key in LegacyVehiclesQuery.fields)) {
        return Effect.fail(new InvalidArgument({ field: key, message: `${key}: unknown argument (expected limit, offset)` }))
      }
    }
    return validate(LegacyVehiclesQuery, defined)
  })

/**
 * Checks the arguments of the vehicle stream: its `limit` only (the stream
 * pages itself), read as any property is (an inherited one too).
 *
 * @internal
 */
export const checkStreamArgs = (args: unknown): Effect.Effect<typeof LegacyVehiclesQuery.Type, InvalidArgument> =>
  Effect.suspend(() => {
    if (typeof args !== "object" || args === null) return checkListArgs(args)
    let limit: unknown
    try {
      limit = (args as { readonly limit?: unknown }).limit
    } catch {
      return Effect.fail(unreadable("arguments"))
    }
    return checkListArgs({ limit })
  })

const Paths = Schema.Array(LegacyPath).check(Schema.isMinLength(1, { expected: "at least one path" }))

/**
 * Checks the paths of a batch (a non-empty list of known paths) and removes
 * duplicates: the caller's list read once into a copy (a getter or a Proxy
 * that throws is an `InvalidArgument` naming `paths`), checked and deduplicated.
 *
 * @internal
 */
export const checkPaths = <P extends LegacyPath>(
  paths: ReadonlyArray<P>
): Effect.Effect<readonly [P, ...Array<P>], InvalidArgument> =>
  Effect.suspend(() => {
    let copy: unknown = paths
    try {
      if (Array.isArray(paths)) copy = Array.prototype.slice.call(paths)
    } catch {
      return Effect.fail(unreadable("paths"))
    }
    // an entry is named by its index in the list: paths[0]
    const rename = (index: string) => `paths[${index}]`
    return Effect.map(validate(Paths, copy, { field: "paths", rename }), (valid) => [...new Set(valid)] as unknown as readonly [P, ...Array<P>])
  })
