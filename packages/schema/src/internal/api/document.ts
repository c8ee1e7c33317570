/**
 * What the contract adds to its OpenAPI document beyond what the schemas
 * give: query integers that carry their limits and default, response
 * headers, and open objects. None of it changes what is decoded or sent.
 *
 * @internal
 */
import { Schema } from "effect"

type Json = Record<string, any>

/**
 * A query integer as it is sent (a string), for an endpoint's `query`: it
 * decodes exactly as `schema` in a query does, and its OpenAPI parameter
 * carries the limits of `schema` (`minimum`, `maximum`: those of the integer
 * the string must spell), the `default` the service takes when it is absent
 * and a `description`. Effect documents a query value by its encoded side
 * (a string with a number pattern), where the checks of the integer do not
 * reach: this string is that encoded side, annotated.
 *
 * @internal
 */
export const queryInteger = (
  schema: Schema.Codec<number, number>,
  options: { readonly description: string; readonly default: number }
) => {
  const sent = Schema.toCodecStringTree(schema)
  const { pattern } = Schema.toJsonSchemaDocument(sent).schema
  const { maximum, minimum } = Schema.toJsonSchemaDocument(schema).schema
  // documents only: the decoding of `sent` checks the string and the integer
  const limits = Schema.makeFilter((_: string) => true, { toJsonSchema: () => ({ pattern, minimum, maximum }) })
  return Schema.String.annotate({ description: options.description, default: String(options.default) }).check(limits).pipe(
    Schema.decodeTo(sent)
  )
}

/** An OpenAPI response header. */
interface Header {
  readonly description: string
  readonly required?: boolean
}

/**
 * An `OpenApi.Transform` of one operation that declares response headers:
 * `byStatus` maps a status (`"*"`: every response of the operation) to its
 * headers (lower-case names, string values). The headers are set outside
 * the endpoint's schemas (by the service's middleware), so they are declared
 * in the document only: see the README, "OpenAPI document".
 *
 * @internal
 */
export const responseHeaders = (byStatus: Readonly<Record<string, Readonly<Record<string, Header>>>>) =>
(operation: Json): Json => {
  const responses: Json = {}
  for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
    const added = { ...byStatus["*"], ...byStatus[status] }
    responses[status] = Object.keys(added).length === 0 ? response : {
      ...response,
      headers: {
        ...response.headers,
        ...Object.fromEntries(
          Object.entries(added).map(([name, header]) => [
            name,
            { description: header.description, required: header.required ?? false, schema: { type: "string" } }
          ])
        )
      }
    }
  }
  return { ...operation, responses }
}

/**
 * An `OpenApi.Transform` of one operation that marks its request header
 * `name` (lower case) required, with `description`: for a header a caller
 * of the contract need not pass because its HTTP client sets it (the
 * schema keeps it optional), which the service requires.
 *
 * @internal
 */
export const requiredHeader = (name: string, description: string) => (operation: Json): Json => ({
  ...operation,
  parameters: (operation.parameters ?? []).map((parameter: Json) =>
    parameter.in === "header" && String(parameter.name).toLowerCase() === name ? { ...parameter, required: true, description } : parameter
  )
})

/**
 * The deprecation headers of a deprecated v2.0 response (every status).
 *
 * @internal
 */
export const deprecationHeaders: Readonly<Record<string, Header>> = {
  deprecation: { description: "RFC 9745: the date v2.0 is deprecated as of (@1796083200, 2026-12-01)", required: true },
  link: { description: "The migration guide (rel=\"deprecation\")", required: true },
  sunset: { description: "RFC 8594: the removal date, when one is announced" }
}

/**
 * Every 429 of the document carries `Retry-After` (when the wait is known).
 *
 * @internal
 */
export const declareRetryAfter = (spec: Json): Json => mapOperations(spec, responseHeaders({
  "429": { "retry-after": { description: "Seconds to wait before the next request, when known" } }
}))

/**
 * Every object of the document is open (no `additionalProperties: false`,
 * which Effect writes for every struct): the service may add fields to a
 * response and clients ignore unknown ones, and the service ignores unknown
 * fields of a request body (the token form, the batch).
 *
 * @internal
 */
export const openObjects = (spec: Json): Json => open(spec) as Json

const open = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(open)
  if (value === null || typeof value !== "object") return value
  const out: Json = {}
  const object = value as Json
  const schema = object.type === "object" || typeof object.properties === "object"
  for (const [key, item] of Object.entries(object)) {
    if (key === "additionalProperties" && item === false && schema) continue
    out[key] = open(item)
  }
  return out
}

const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

const mapOperations = (spec: Json, f: (operation: Json) => Json): Json => {
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    paths[path] = Object.fromEntries(
      Object.entries(item).map(([method, operation]) => [method, methods.includes(method) ? f(operation) : operation])
    )
  }
  return { ...spec, paths }
}

/**
 * The servers of the document path by path (OpenAPI 3.1 path-level
 * `servers`): `serverOf` gives the origin that serves a path (`undefined`:
 * the document's own, unchanged). For a service whose roots are on several
 * origins, so that a client generated from the document (or a try-it
 * button) sends each operation to its root.
 *
 * @internal
 */
export const pathServers = (serverOf: (path: string) => string | undefined) => (spec: Json): Json => {
  const paths: Json = {}
  for (const [path, item] of Object.entries<Json>(spec.paths ?? {})) {
    const url = serverOf(path)
    paths[path] = url === undefined ? item : { ...item, servers: [{ url }] }
  }
  return { ...spec, paths }
}
