/**
 * Settings as every package of the SDK reads them: keywords read from the
 * environment, one of a few lower-case words, in any case, white space around
 * it ignored (`CONNECTED_VEHICLE_LOG=Warn`,
 * `CONNECTED_VEHICLE_DEPRECATION_WARNINGS=OFF`), and options objects given in
 * code, whose keys are all options ({@link unknownOption}).
 *
 * @since 0.3.0
 */
import { Schema, SchemaTransformation } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"

/**
 * A key as a message shows it: as it is when plain, else as a JSON string cut
 * after 40 characters (no control character reaches the message).
 */
const shownKey = (key: string): string => /^[A-Za-z0-9_$]{1,40}$/.test(key) ? key : JSON.stringify(key.slice(0, 40))

/**
 * The `InvalidArgument` of the first own key of `options` that `known` does
 * not hold (a misspelt option from JavaScript, `{ timout: "1 second" }`, which
 * would otherwise be ignored), naming it below `path` when given
 * (`retry.maxRetriez`; a key that is not plain shown as a JSON string cut
 * after 40 characters), else `undefined`. Throws what reading the keys throws
 * (a Proxy's `ownKeys`). The rule of every options object of the SDK.
 *
 * @example
 * ```ts
 * import { unknownOption } from "@connected-vehicle/transport/Setting"
 *
 * unknownOption({ wiat: true }, ["wait", "maxWait"], "rateLimit")?.field // "rateLimit.wiat"
 * unknownOption({ wait: true }, ["wait", "maxWait"]) // undefined
 * ```
 * @since 0.4.0
 * @category options
 */
export const unknownOption = (options: object, known: ReadonlyArray<string>, path?: string): InvalidArgument | undefined => {
  const key = Object.keys(options).find((k) => !known.includes(k))
  if (key === undefined) return undefined
  const field = path === undefined ? shownKey(key) : `${path}.${shownKey(key)}`
  return new InvalidArgument({ field, message: `${field}: unknown option (expected one of ${known.join(", ")})` })
}

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
