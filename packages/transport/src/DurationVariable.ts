/**
 * Durations read from the environment, as every package of the SDK reads
 * them: an Effect duration under a name (`CONNECTED_VEHICLE_TIMEOUT="5
 * seconds"`), else the deprecated `<name>_MS`, an integer of milliseconds;
 * and a warning that names the deprecated variables still in use.
 *
 * @since 0.2.0
 */
import { Config, Duration, Effect, Option, Schema } from "effect"
import { dual } from "effect/Function"

/**
 * A finite duration, positive or non-negative, from its text (`"250 millis"`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { FiniteDuration } from "@connected-vehicle/transport/DurationVariable"
 *
 * Schema.decodeUnknownSync(FiniteDuration({ positive: true }))("5 seconds")
 * ```
 * @since 0.2.0
 * @category schemas
 */
export const FiniteDuration = (options: { readonly positive: boolean }) =>
  Schema.DurationFromString.check(Schema.makeFilter(
    (d: Duration.Duration) => Duration.isFinite(d) && (options.positive ? Duration.isPositive(d) : !Duration.isNegative(d)),
    { expected: `a ${options.positive ? "positive" : "non-negative"}, finite duration such as "5 seconds"` }
  ))

/**
 * The duration under `name`, else under the deprecated `${name}_MS` (an
 * integer of milliseconds); `undefined` when neither is set. `name` wins when
 * both are set; an invalid value of the one read is a `ConfigError` naming it
 * (never a fall-back to the other).
 *
 * @example
 * ```ts
 * import { make } from "@connected-vehicle/transport/DurationVariable"
 *
 * // CONNECTED_VEHICLE_TIMEOUT="5 seconds", or CONNECTED_VEHICLE_TIMEOUT_MS=5000
 * const timeout = make("CONNECTED_VEHICLE_TIMEOUT", { positive: true })
 * ```
 * @since 0.2.0
 * @category constructors
 */
export const make = (name: string, options: { readonly positive: boolean }): Config.Config<Duration.Duration | undefined> =>
  Config.option(Config.schema(FiniteDuration(options), name)).pipe(
    Config.flatMap((value) =>
      Option.isSome(value)
        ? Config.succeed(value.value)
        : Config.map(
          Config.option(Config.schema(Schema.Int.check(options.positive ? Schema.isGreaterThan(0) : Schema.isGreaterThanOrEqualTo(0)), `${name}_MS`)),
          (millis) => Option.getOrUndefined(Option.map(millis, Duration.millis))
        )
    )
  )

/**
 * The deprecated `<name>_MS` variables set while their `name` is not.
 *
 * @example
 * ```ts
 * import { deprecatedInUse } from "@connected-vehicle/transport/DurationVariable"
 *
 * const used = deprecatedInUse(["CONNECTED_VEHICLE_TIMEOUT"]) // ["CONNECTED_VEHICLE_TIMEOUT_MS"] when only that is set
 * ```
 * @since 0.2.0
 * @category getters
 */
export const deprecatedInUse = (names: ReadonlyArray<string>): Config.Config<ReadonlyArray<string>> =>
  Config.map(
    Config.all(names.map((name) => Config.all([Config.option(Config.String(name)), Config.option(Config.String(`${name}_MS`))]))),
    (pairs) => names.flatMap((name, i) => Option.isNone(pairs[i]![0]) && Option.isSome(pairs[i]![1]) ? [`${name}_MS`] : [])
  )

const warning = (used: ReadonlyArray<string>, prefix: string | undefined): Effect.Effect<void> => {
  if (used.length === 0) return Effect.void
  const full = used.map((name) => prefix === undefined ? name : `${prefix}_${name}`)
  // a `Config` value does not see the prefixes it is read under: the warning says so
  const under = prefix === undefined ? "" : `; under a prefix of the application's own, such as MYAPP_${full[0]}, with it`
  return Effect.logWarning(
    `deprecated environment variables ${full.join(", ")} (integers of milliseconds${under}): set ${
      full.map((name) => name.slice(0, -3)).join(", ")
    } to an Effect duration instead, such as "5 seconds"`
  )
}

/**
 * Logs one warning naming the deprecated `<name>_MS` variables in use, if
 * any (what the environment cannot be read for is left to the reading of
 * the values themselves).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { warnDeprecated } from "@connected-vehicle/transport/DurationVariable"
 *
 * const program = Effect.andThen(warnDeprecated(["CONNECTED_VEHICLE_TIMEOUT"]), Effect.log("configured"))
 * ```
 * @since 0.2.0
 * @category logging
 */
export const warnDeprecated = (names: ReadonlyArray<string>): Effect.Effect<void> =>
  Effect.flatMap(Effect.orElseSucceed(deprecatedInUse(names), (): ReadonlyArray<string> => []), (used) => warning(used, undefined))

/**
 * `self`, logging one warning, each time it is read, that names the
 * deprecated `<name>_MS` of `names` set while their `name` is not. The names
 * are relative to where `self` is read (`self`'s own `Config.nested`
 * included): `options.prefix` is what the warning puts before them, the
 * prefix a package nests its configuration under.
 *
 * @example
 * ```ts
 * import { Config } from "effect"
 * import { make, withWarning } from "@connected-vehicle/transport/DurationVariable"
 *
 * // MYAPP_TIMEOUT_MS=5000 warns: set MYAPP_TIMEOUT to an Effect duration instead
 * const timeout = Config.all({ timeout: make("TIMEOUT", { positive: true }) }).pipe(
 *   withWarning(["TIMEOUT"], { prefix: "MYAPP" }),
 *   Config.nested("MYAPP")
 * )
 * ```
 * @since 0.2.0
 * @category combinators
 */
export const withWarning: {
  (names: ReadonlyArray<string>, options?: { readonly prefix?: string | undefined }): <A>(self: Config.Config<A>) => Config.Config<A>
  <A>(self: Config.Config<A>, names: ReadonlyArray<string>, options?: { readonly prefix?: string | undefined }): Config.Config<A>
} = dual(
  (args) => Config.isConfig(args[0]),
  <A>(self: Config.Config<A>, names: ReadonlyArray<string>, options?: { readonly prefix?: string | undefined }): Config.Config<A> =>
    Config.all([self, deprecatedInUse(names)]).pipe(
      Config.mapEffect(([value, used]) => Effect.as(warning(used, options?.prefix), value))
    )
)
