/**
 * JSON text read with the object keys it spells.
 *
 * V8's `JSON.parse` (Node 24 to 26 at least; nodejs/node#63785, V8 issue
 * 521080746) can give an object key that contains an escape sequence the
 * wrong value once a key holding a backslash has been parsed at the same
 * place of an object of the same shape: after `{"\\":1}`, `{"\u0000":1}`
 * reads as `{"\\":1}`. What came before decides, so the same body decodes
 * differently in a long-running process. Keys without an escape sequence,
 * and every string value, are read correctly.
 *
 * @since 0.2.0
 */
import { Effect, Schema, SchemaGetter, SchemaIssue, SchemaTransformation } from "effect"
import { restoreKeys, rewriteEscapedKeys } from "./internal/json.ts"

/**
 * `JSON.parse` of a text, with every object key as the text spells it. A text
 * without a backslash (the common case) is read by `JSON.parse` alone; one
 * with an escaped key has those keys read as string values first. Throws
 * `JSON.parse`'s own `SyntaxError` for a text that is not JSON, and a
 * `RangeError` for a text with an escaped key within a few characters per
 * key of the longest string V8 holds (2^29 - 24 characters: the keys read
 * apart lengthen it), rather than reading its keys wrong.
 *
 * @example
 * ```ts
 * import { parse } from "@connected-vehicle/schema/Json"
 *
 * Object.keys(parse(`{"\\u0000":1}`) as object) // ["\u0000"], whatever was parsed before
 * ```
 * @category parsing
 * @since 0.2.0
 */
export const parse = (text: string): unknown => {
  if (!text.includes("\\")) return JSON.parse(text)
  try {
    const rewritten = rewriteEscapedKeys(text)
    if (rewritten !== undefined) return restoreKeys(JSON.parse(rewritten.text), rewritten.marker, rewritten.keys)
  } catch (error) {
    // not JSON: `JSON.parse` answers with its own error (anything else is
    // thrown as it is: read by `JSON.parse` alone, the keys could be misread)
    if (!(error instanceof SyntaxError)) throw error
  }
  return JSON.parse(text)
}

/**
 * `Schema.fromJsonString(schema)` that reads the text with {@link parse}:
 * decodes JSON text to the schema's type, encodes back with `JSON.stringify`
 * (as Effect's, whose string schema and encoding it keeps).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { fromJsonString } from "@connected-vehicle/schema/Json"
 *
 * const Body = fromJsonString(Schema.Record(Schema.String, Schema.Number))
 * Schema.decodeUnknownSync(Body)(`{"\\n":1}`) // { "\n": 1 }
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const fromJsonString = <S extends Schema.Top>(schema: S): Schema.decodeTo<S, Schema.String> =>
  Schema.fromJsonString(schema).from.pipe(Schema.decodeTo(schema, {
    decode: SchemaGetter.transformEffect((input: string, options) =>
      Effect.try({
        try: () => parse(input),
        catch: () => new SchemaIssue.InvalidValue({ expected: "a valid JSON string" }, input, options)
      })
    ),
    encode: SchemaTransformation.fromJsonString().encode
  }))
