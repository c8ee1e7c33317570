/**
 * Keyword settings read from the environment, as every package of the SDK
 * reads them: one of a few lower-case words, in any case, white space around
 * it ignored (`CONNECTED_VEHICLE_LOG=Warn`,
 * `CONNECTED_VEHICLE_DEPRECATION_WARNINGS=OFF`).
 *
 * @since 0.3.0
 */
import { Schema, SchemaTransformation } from "effect"

/**
 * A schema from text to one of `keywords` (lower-case words), the text
 * trimmed and lower-cased first: the rule of `CONNECTED_VEHICLE_LOG`
 * (`TransportConfig.config`) and of `CONNECTED_VEHICLE_DEPRECATION_WARNINGS`
 * (`Vehicles.config` of `@connected-vehicle/legacy-v2`). Another word is a
 * schema error listing the keywords.
 *
 * @example
 * ```ts
 * import { Config, Schema } from "effect"
 * import { Keyword } from "@connected-vehicle/transport/Setting"
 *
 * Schema.decodeUnknownSync(Keyword(["on", "off"]))(" OFF ") // "off"
 * const mode = Config.schema(Keyword(["fast", "safe"]), "MYAPP_MODE")
 * ```
 * @since 0.3.0
 * @category schemas
 */
export const Keyword = <const Words extends ReadonlyArray<string>>(keywords: Words) =>
  Schema.String.pipe(
    Schema.decodeTo(
      Schema.Literals(keywords),
      SchemaTransformation.transform<Words[number], string>({
        // the literals check what this gives
        decode: (s) => s.trim().toLowerCase() as Words[number],
        encode: (s) => s
      })
    )
  )
