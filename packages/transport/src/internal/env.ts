/**
 * Readers of the transport's environment variables.
 *
 * @internal
 */
import { Config, Option, Schema, SchemaTransformation } from "effect"
import * as DurationVariable from "../DurationVariable.ts"

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
export const factorAtLeastOne = (name: string) =>
  Config.option(Config.schema(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(1)), name))
/**
 * A duration under `name` (an Effect duration), else under the deprecated
 * `${name}_MS` (milliseconds): see `DurationVariable.make`.
 */
export const duration = (name: string, positive: boolean) => DurationVariable.make(name, { positive })
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
