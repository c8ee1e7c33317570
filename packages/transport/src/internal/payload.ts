/**
 * The body of a request from the contract's payload declaration
 * (`HttpApiEndpoint.payload`: per content type, its public encoding and
 * schemas), encoded as `HttpApiClient` encodes it: JSON text,
 * form-urlencoded parameters, text or bytes; on a method without a body,
 * URL parameters.
 *
 * @internal
 */
import { Effect, Predicate, Schema, SchemaIssue } from "effect"
import type { SchemaAST } from "effect"
import { HttpBody, HttpMethod, UrlParams } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"

/**
 * What a payload becomes: a body, or URL parameters (a method without a body).
 *
 * @internal
 */
export type Encoded =
  | { readonly _tag: "Body"; readonly body: HttpBody.HttpBody }
  | { readonly _tag: "UrlParams"; readonly urlParams: UrlParams.Input }

/**
 * The payload encoder of an endpoint; `undefined` without a payload; a
 * string saying why when the transport cannot build it (a multipart or
 * streamed payload, or several content types).
 *
 * @internal
 */
export const make = (
  endpoint: HttpApiEndpoint.Top,
  options: SchemaAST.ParseOptions | undefined
): ((payload: unknown) => Effect.Effect<Encoded, Schema.SchemaError>) | undefined | string => {
  const entries = [...endpoint.payload.values()]
  if (entries.length === 0) return undefined
  if (entries.length > 1) return "a payload of several content types"
  const { encoding, schemas } = entries[0]!
  if (encoding._tag === "Multipart" || encoding._tag === "Stream") return `a ${encoding._tag.toLowerCase()} payload`
  const schema = schemas.length === 1 ? schemas[0] : Schema.Union(schemas)
  const encode = Schema.encodeUnknownEffect(schema as Schema.Codec<unknown, unknown>, options)
  if (!HttpMethod.hasBody(endpoint.method)) {
    return (payload) =>
      Effect.flatMap(encode(payload), (value) =>
        Predicate.isObject(value)
          ? Effect.succeed<Encoded>({ _tag: "UrlParams", urlParams: value as UrlParams.Input })
          : invalid(value, "Expected a record"))
  }
  const { contentType } = encoding
  return (payload) =>
    Effect.flatMap(encode(payload), (value): Effect.Effect<Encoded, Schema.SchemaError> => {
      switch (encoding._tag) {
        case "Json": {
          let text: string | undefined
          try {
            text = JSON.stringify(value)
          } catch {
            // a value JSON cannot write (a cycle, a BigInt): the schema error below
          }
          return text === undefined
            ? invalid(value, "Expected a JSON-serializable request body")
            : Effect.succeed({ _tag: "Body", body: HttpBody.text(text, contentType) })
        }
        case "FormUrlEncoded":
          return Predicate.isObject(value)
            ? Effect.succeed({ _tag: "Body", body: HttpBody.urlParams(UrlParams.fromInput(value as UrlParams.Input), contentType) })
            : invalid(value, "Expected a record")
        case "Text":
          return typeof value === "string"
            ? Effect.succeed({ _tag: "Body", body: HttpBody.text(value, contentType) })
            : invalid(value, "Expected a string")
        case "Uint8Array":
          return value instanceof Uint8Array
            ? Effect.succeed({ _tag: "Body", body: HttpBody.uint8Array(value, contentType) })
            : invalid(value, "Expected a Uint8Array")
      }
    })
}

const invalid = (value: unknown, message: string): Effect.Effect<never, Schema.SchemaError> =>
  Effect.fail(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message }, value)))
