/**
 * Readers of the transport's environment variables.
 *
 * @internal
 */
import { Config, Duration, Option, Schema, SchemaTransformation } from "effect"

/** The SDK's log settings, as `TransportConfig.logLevels` names them. */
const settings = ["debug", "info", "warn", "error", "off"] as const

type Setting = (typeof settings)[number]

/** @internal */
export const root = (name: string, suffix: string) =>
  Config.String(name).pipe(
    Config.orElse(() => Config.String("CONNECTED_VEHICLE_ORIGIN").pipe(Config.map((o) => o.replace(/\/+$/, "") + suffix)))
  )

/** Comma-separated header names, at least one. */
export const HeaderNames = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Array(Schema.NonEmptyString).check(Schema.isMinLength(1, { expected: "at least one header name" })),
    SchemaTransformation.transform<ReadonlyArray<string>, string>({
      decode: (s) => s.split(",").map((name) => name.trim()).filter((name) => name.length > 0),
      encode: (names) => names.join(",")
    })
  )
)

export const positiveInt = (name: string) =>
  Config.option(Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), name))
export const nonNegativeInt = (name: string) =>
  Config.option(Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), name))
export const factorAtLeastOne = (name: string) =>
  Config.option(Config.schema(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(1)), name))
/** A finite duration, positive (`positive`) or non-negative. */
const finiteDuration = (positive: boolean) =>
  Schema.DurationFromString.check(Schema.makeFilter(
    (d: Duration.Duration) => Duration.isFinite(d) && (positive ? Duration.isPositive(d) : !Duration.isNegative(d)),
    { expected: `a ${positive ? "positive" : "non-negative"}, finite duration such as "5 seconds"` }
  ))

/**
 * A duration under `name`, an Effect duration (`"5 seconds"`), else under the
 * deprecated `${name}_MS`, an integer of milliseconds; `undefined` when
 * neither is set. `name` wins when both are set; an invalid value of the one
 * read is a `ConfigError` naming it.
 */
export const duration = (name: string, positive: boolean): Config.Config<Duration.Duration | undefined> =>
  Config.option(Config.schema(finiteDuration(positive), name)).pipe(
    Config.flatMap((value) =>
      Option.isSome(value)
        ? Config.succeed(value.value)
        : Config.map((positive ? positiveInt : nonNegativeInt)(`${name}_MS`), (ms) => Option.getOrUndefined(Option.map(ms, Duration.millis)))
    )
  )
export const get = <A>(config: Config.Config<Option.Option<A>>) => Config.map(config, Option.getOrUndefined)

/** `debug`, `info`, `warn`, `error` or `off` (any case). */
/** @internal */
export const LogSetting = Schema.String.pipe(
  Schema.decodeTo(
    Schema.Literals(settings),
    SchemaTransformation.transform<Setting, string>({
      // the literals check what this gives
      decode: (s) => s.trim().toLowerCase() as Setting,
      encode: (s) => s
    })
  )
)
