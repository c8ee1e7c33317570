/**
 * @internal
 */
import { Context, Effect, Option, Redacted, Schema, SchemaAST } from "effect"
import { Headers, HttpBody, HttpClientRequest, UrlParams } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import { HttpApi, HttpApiSchema } from "effect/http-api"
import * as Payload from "./payload.ts"

/**
 * The parts of a request argument (`params`, `query`, `headers`, `payload`) as the
 * caller passed them.
 *
 * @internal
 */
export interface Given {
  readonly params?: unknown
  readonly query?: unknown
  readonly headers?: unknown
  readonly payload?: unknown
}

/**
 * Builds an endpoint's request directly from its contract, with
 * `fixedHeaders` (accept, accept-encoding, User-Agent) already set: the path template
 * compiled once into a function of the encoded params (`encodeURIComponent`
 * per segment), then the payload (see `./payload.ts`), headers and query,
 * encoded with the endpoint's schemas in the order and with the results of
 * `HttpApiClient`. Plain fields (`String`, literals, and their optional keys)
 * are checked without running the schema; anything else, and any value those
 * checks refuse, goes through `Schema.encodeUnknownEffect`, so that errors
 * are the schema's own.
 *
 * An endpoint the transport does not build (client middleware, an upgrade or
 * a streamed success, a multipart or streamed payload, a path with optional
 * or constrained parameters) fails each call with a message saying so.
 *
 * @internal
 */
export const makeBuilder = (
  endpoint: HttpApiEndpoint.Top,
  baseUrl: string,
  annotations: Context.Context<never>,
  hasMiddleware: boolean,
  fixedHeaders: Readonly<Record<string, string>>
): (given: Given) => HttpClientRequest.HttpClientRequest | Effect.Effect<HttpClientRequest.HttpClientRequest, unknown> => {
  const makePath = compilePath(endpoint.path, endpoint.params)
  // the parse options HttpApiClient uses: the slot's, else the general ones
  const fallback = Context.getOrUndefined(annotations, HttpApi.ParseOptions)
  const payload = Payload.make(endpoint, Context.getOrUndefined(annotations, HttpApi.PayloadParseOptions) ?? fallback)
  const why = unsupported(endpoint, hasMiddleware, makePath === undefined, payload)
  if (why !== undefined || makePath === undefined || typeof payload === "string") {
    const failure = Effect.fail(`the transport does not build requests of ${endpoint.method} ${endpoint.path}: ${why}`)
    return () => failure
  }
  const method = endpoint.method
  const params = part(endpoint.params, Context.getOrUndefined(annotations, HttpApi.ParamsParseOptions) ?? fallback)
  const headers = part(endpoint.headers, Context.getOrUndefined(annotations, HttpApi.HeadersParseOptions) ?? fallback)
  const query = part(endpoint.query, Context.getOrUndefined(annotations, HttpApi.QueryParseOptions) ?? fallback)

  // the headers every request of the transport carries (the pipeline sets them too, for any other request)
  const fixed = Headers.fromInput(fixedHeaders)
  const assemble = (p: unknown, h: unknown, q: unknown): HttpClientRequest.HttpClientRequest => {
    const request = HttpClientRequest.makeWith(
      method,
      baseUrl + makePath(p as Record<string, string>),
      UrlParams.empty,
      Option.none(),
      // the fixed ones win, as when the pipeline sets them
      h === undefined ? fixed : Headers.fromInput({ ...(h as Record<string, string>), ...fixedHeaders }),
      HttpBody.empty
    )
    return q === undefined ? request : HttpClientRequest.appendUrlParams(request, q as UrlParams.Input)
  }
  const withPayload = (request: HttpClientRequest.HttpClientRequest, encoded: Payload.Encoded) =>
    encoded._tag === "Body"
      ? HttpClientRequest.setBody(request, encoded.body)
      : HttpClientRequest.appendUrlParams(request, encoded.urlParams)

  const parts = (given: Given) => {
    // declared parts default to `{}`, as the typed request allows leaving out
    // a part whose fields are all optional
    const p = params === undefined ? undefined : given.params ?? {}
    const h = headers === undefined ? undefined : given.headers ?? {}
    const q = query === undefined ? undefined : given.query ?? {}
    const fp = params === undefined ? undefined : params.fast(p)
    const fh = headers === undefined ? undefined : headers.fast(h)
    const fq = query === undefined ? undefined : query.fast(q)
    if ((params === undefined || fp !== undefined) && (headers === undefined || fh !== undefined) && (query === undefined || fq !== undefined)) {
      return assemble(fp, fh, fq)
    }
    return Effect.flatMap(
      params === undefined ? Effect.undefined : params.encode(p),
      (ep) =>
        Effect.flatMap(
          headers === undefined ? Effect.undefined : headers.encode(h),
          (eh) => Effect.map(query === undefined ? Effect.undefined : query.encode(q), (eq) => assemble(ep, eh, eq))
        )
    )
  }
  if (payload === undefined) return parts
  return (given) => {
    const request = parts(given)
    return Effect.flatMap(Effect.isEffect(request) ? request : Effect.succeed(request), (built) =>
      Effect.map(payload(given.payload), (encoded) => withPayload(built, encoded)))
  }
}

/** Why the transport does not build an endpoint's requests, if it does not. */
const unsupported = (
  endpoint: HttpApiEndpoint.Top,
  hasMiddleware: boolean,
  badPath: boolean,
  payload: ReturnType<typeof Payload.make>
): string | undefined =>
  hasMiddleware
    ? "client middleware"
    // a success that changes the request (an `HttpApiSchema.Upgrade` asks for
    // `connection: upgrade`) has no data encoding, as a stream has none (a
    // `WithHeaders` success is read from the response only)
    : [...endpoint.success].some((success) => !plainBody(success))
    ? "an upgrade or a streamed success"
    : badPath
    ? "a path whose parameters are not whole segments declared by its params"
    : typeof payload === "string"
    ? payload
    : undefined

/** Whether a success schema is data: its encoded form is not a declaration (an upgrade, a stream). */
const plainBody = (success: Schema.Top): boolean =>
  !SchemaAST.isDeclaration(SchemaAST.toEncoded((HttpApiSchema.isWithHeaders(success) ? success.schema : success).ast))

interface Part {
  /** The encoded value when every field is plain and valid, else `undefined`. */
  readonly fast: (input: unknown) => Record<string, unknown> | undefined
  readonly encode: (input: unknown) => Effect.Effect<unknown, Schema.SchemaError>
}

const never = (): undefined => undefined

const part = (schema: Schema.Top | undefined, options: SchemaAST.ParseOptions | undefined): Part | undefined => {
  if (schema === undefined) return undefined
  return {
    fast: options === undefined ? plainStruct(schema.ast) ?? never : never,
    encode: Schema.encodeUnknownEffect(schema as Schema.Codec<unknown, unknown>, options)
  }
}

const isString = (u: unknown): boolean => typeof u === "string"

/** A check equivalent to encoding a field whose type has no encoding and no checks. */
const plainField = (ast: SchemaAST.AST): ((u: unknown) => boolean) | undefined => {
  if (ast.checks !== undefined || ast.encoding !== undefined) return undefined
  switch (ast._tag) {
    case "String":
      return isString
    case "Literal": {
      const literal = ast.literal
      return (u) => u === literal
    }
    case "Union": {
      const literals = new Set<unknown>()
      for (const member of ast.types) {
        if (member._tag !== "Literal" || member.checks !== undefined || member.encoding !== undefined) return undefined
        literals.add(member.literal)
      }
      return (u) => literals.has(u)
    }
    default:
      return undefined
  }
}

/**
 * For a struct of plain fields: a function returning what encoding returns
 * (the declared fields present in the input) or `undefined` when encoding
 * could fail (then the schema decides).
 */
const plainStruct = (ast: SchemaAST.AST): ((input: unknown) => Record<string, unknown> | undefined) | undefined => {
  if (ast._tag !== "Objects" || ast.checks !== undefined || ast.encoding !== undefined || ast.encodingChecks !== undefined) {
    return undefined
  }
  if (ast.indexSignatures.length > 0) return undefined
  const fields: Array<{ readonly name: string; readonly optional: boolean; readonly check: (u: unknown) => boolean }> = []
  for (const property of ast.propertySignatures) {
    const check = plainField(property.type)
    if (check === undefined || typeof property.name !== "string") return undefined
    fields.push({ name: property.name, optional: property.type.context?.isOptional ?? false, check })
  }
  return (input) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined
    const out: Record<string, unknown> = {}
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!
      if (!Object.hasOwn(input, field.name)) {
        if (field.optional) continue
        return undefined
      }
      const value = (input as Record<string, unknown>)[field.name]
      if (!field.check(value)) return undefined
      out[field.name] = value
    }
    return out
  }
}

/**
 * The path template as a function of the encoded params, for templates whose
 * parameters are whole `:name` segments declared by the params schema.
 */
const compilePath = (path: string, schema: Schema.Top | undefined): ((params: Record<string, string>) => string) | undefined => {
  if (!path.includes(":")) return () => path
  if (schema === undefined || schema.ast._tag !== "Objects") return undefined
  const declared = new Set(schema.ast.propertySignatures.map((p) => p.name))
  const statics: Array<string> = []
  const names: Array<string> = []
  let rest = path
  for (;;) {
    const match = /:(\w+)/.exec(rest)
    if (match === null) break
    const after = rest[match.index + match[0].length]
    if (rest[match.index - 1] !== "/" || (after !== undefined && after !== "/") || !declared.has(match[1]!)) return undefined
    statics.push(rest.slice(0, match.index))
    names.push(match[1]!)
    rest = rest.slice(match.index + match[0].length)
  }
  if (rest.includes(":")) return undefined
  statics.push(rest)
  return (params) => {
    let out = statics[0]!
    for (let i = 0; i < names.length; i++) {
      const value = params[names[i]!]
      if (value === undefined) throw new Error(`Missing path parameter: ${names[i]}`)
      out += encodeURIComponent(value) + statics[i + 1]!
    }
    return out
  }
}

/**
 * The headers every request of the transport carries: `accept-encoding:
 * identity` too, since a request without it accepts any content coding (RFC
 * 9110 §12.5.3) and the transport's clients decode none.
 *
 * @internal
 */
export const fixedHeaders = (userAgent: string) =>
  ({ accept: "application/json", "accept-encoding": "identity", "user-agent": userAgent }) as const

/**
 * The request with the call's credential, unless it carries an
 * `authorization` of its own (the token endpoint's).
 *
 * @internal
 */
export const withBearer = (
  request: HttpClientRequest.HttpClientRequest,
  token: Redacted.Redacted<string> | undefined
): HttpClientRequest.HttpClientRequest =>
  token !== undefined && request.headers["authorization"] === undefined
    ? HttpClientRequest.setHeader(request, "authorization", `Bearer ${Redacted.value(token)}`)
    : request
