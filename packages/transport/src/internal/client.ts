/**
 * The typed client of one group of a contract: one {@link Call.make} per
 * endpoint, each with its request builder and success decoder derived from
 * the endpoint's declaration.
 *
 * @internal
 */
import { Context, Effect, Exit, Schema, SchemaAST } from "effect"
import { HttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import type { HttpClientResponse } from "effect/http"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { HttpApi, HttpApiClient, HttpApiSchema } from "effect/http-api"
import { EmbedsResponses } from "@connected-vehicle/schema/Api"
import * as Json from "@connected-vehicle/schema/Json"
import type { Credentials } from "../Credentials.ts"
import type { Admit } from "../Transport.ts"
import type { Roots, TransportConfig } from "../TransportConfig.ts"
import * as Call from "./call.ts"
import * as BodyDecoder from "./decoder.ts"
import type { Hook } from "./hooks.ts"
import * as SdkLog from "./log.ts"
import { fixedHeaders, makeBuilder } from "./request.ts"
import { scrubber, secretsOf } from "./redact.ts"
import { notJson } from "./responses.ts"
import { untraced } from "./untraced.ts"

/**
 * The transport's own `HttpClient` over the one it is given: the fixed
 * headers (accept, accept-encoding, User-Agent) on every request, and the client's span per
 * attempt only with `httpSpans` (each call has its span): without it, its
 * requests untraced (`./untraced.ts`) and the fixed headers, as one step.
 *
 * @internal
 */
export const pipeline = (base: HttpClient.HttpClient, config: TransportConfig["Service"]): HttpClient.HttpClient => {
  const fixed = fixedHeaders(config.userAgent)
  const withFixed = (request: HttpClientRequest.HttpClientRequest) =>
    request.headers["accept"] === fixed.accept && request.headers["user-agent"] === fixed["user-agent"] &&
      request.headers["accept-encoding"] === fixed["accept-encoding"]
      ? request
      : HttpClientRequest.setHeaders(request, fixed)
  return config.httpSpans
    ? HttpClient.mapRequest(base, withFixed)
    : HttpClient.makeWith<HttpClientError.HttpClientError, never, HttpClientError.HttpClientError, never>(
      (request) => untraced(base, request),
      (request) => Effect.flatMapEager(base.preprocess(request), (request) => Exit.succeed(withFixed(request)))
    )
}

const rootOfApi: Record<string, keyof Roots> = {
  vehicle: "base",
  management: "management",
  compatibility: "compatibility",
  authorization: "authorization",
  legacy: "legacy"
}

/**
 * Whether the endpoints of `group` of the API `api` are the authorization
 * server's (`AuthorizationApi`, or its `oauth` group within another API such
 * as `ServiceApi`): their error bodies are RFC 6749's `{ error,
 * error_description }`, not the section 7 envelope.
 */
const isAuthorizationServer = (api: string, group: string): boolean => rootOfApi[api] === "authorization" || group === "oauth"

/** @internal */
export interface Spec {
  readonly config: TransportConfig["Service"]
  readonly httpClient: HttpClient.HttpClient
  readonly admit: Admit | undefined
  readonly credentials: Credentials["Service"] | undefined
  readonly root: keyof Roots | undefined
  readonly onResponse: Hook | undefined
}

/**
 * The functions of one group, by endpoint name.
 *
 * @internal
 */
export const make = (
  api: HttpApi.HttpApi<string, HttpApiGroup.Constraint>,
  group: string,
  spec: Spec
): Effect.Effect<Record<string, Call.Method>> =>
  Effect.sync(() => {
    const { config } = spec
    const log = SdkLog.make(config.logLevel)
    const baseUrl = config.roots[spec.root ?? rootOfApi[api.identifier] ?? "base"].replace(/\/+$/, "")
    const fixed = fixedHeaders(config.userAgent)
    const authorizationServer = isAuthorizationServer(api.identifier, group)
    const endpoints: Array<{ readonly endpoint: HttpApiEndpoint.Top; readonly build: Call.Builder }> = []
    HttpApi.reflect(api as any, {
      predicate: ({ group: g }) => g.identifier === group,
      onGroup() {},
      onEndpoint({ endpoint, mergedAnnotations, middleware }) {
        endpoints.push({ endpoint, build: makeBuilder(endpoint, baseUrl, mergedAnnotations, middleware.size > 0, fixed) })
      }
    })
    const out: Record<string, Call.Method> = {}
    for (const { build, endpoint } of endpoints) {
      out[endpoint.identifier] = Call.make({
        config,
        httpClient: spec.httpClient,
        admit: spec.admit,
        credentials: spec.credentials,
        log,
        spanName: `connected-vehicle.${group}.${endpoint.identifier}`,
        method: endpoint.method,
        path: endpoint.path,
        baseUrl,
        build,
        ...makeDecoder(api, group, endpoint.identifier),
        onResponse: spec.onResponse,
        authorizationServer
      })
    }
    return out
  })

/** A JSON media type (`application/json`, `application/problem+json`, with parameters or not). */
const isJson = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false
  const semicolon = contentType.indexOf(";")
  const type = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase()
  return type === "application/json" || type.endsWith("+json")
}

/**
 * The success decoder of an endpoint, with the statuses the contract
 * declares for it (a 2xx outside them is an `UnexpectedStatus` before any
 * decode). When the contract declares one body
 * for 200 that encodes to an object or an array (every endpoint but the
 * authorize redirect, the token union and the legacy readings with their
 * headers), a 200 with a JSON content type (its body already read by the
 * exchange) is parsed with the schema package's `Json.parse` (V8's
 * `JSON.parse` can misread escaped object keys) and decoded with that schema
 * (`decoder.ts`, which gives what Effect's decoder gives); anything else goes
 * through `HttpApiClient.decodeResponse`, which reads the body again (every
 * `HttpClient` the project ships or documents keeps it once read; the
 * behaviour suite checks it).
 *
 * An endpoint the contract annotates `EmbedsResponses` (the legacy batch:
 * its body holds the responses to the request, headers and bodies as the
 * server wrote them) has its 200 parsed as JSON whatever its content type,
 * and scrubbed of the request's secrets (`./redact.ts`, as an error body)
 * before it is decoded; no other endpoint pays for it.
 */
const makeDecoder = (api: HttpApi.HttpApi<string, HttpApiGroup.Constraint>, group: string, endpoint: string): Call.Decoder => {
  const general = HttpApiClient.decodeResponse(api as any, { group, endpoint } as any) as (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<unknown, unknown>
  let schema: Schema.Top | undefined
  let embeds = false
  const declared = new Set<number>()
  HttpApi.reflect(api as any, {
    predicate: ({ endpoint: e, group: g }) => g.identifier === group && e.identifier === endpoint,
    onGroup() {},
    onEndpoint({ errors, mergedAnnotations, successes }) {
      // what the contract declares (no streamed or upgraded response: the service has none), never Effect's messages
      for (const status of successes.keys()) declared.add(status)
      for (const status of errors.keys()) declared.add(status)
      embeds = Context.getOrUndefined(mergedAnnotations, EmbedsResponses) === true
      const only = successes.get(200)
      if (successes.size !== 1 || only === undefined || only.length !== 1) return
      const candidate = only[0]
      if (HttpApiSchema.isWithHeaders(candidate)) return
      // a body that encodes to an object or an array: JSON, unless the
      // contract says otherwise (form-encoded), which the response's
      // content type tells below
      const encoded = SchemaAST.toEncoded(candidate.ast)
      if (SchemaAST.isObjects(encoded) || SchemaAST.isArrays(encoded)) schema = candidate
    }
  })
  // the scrub of embedded responses is done on the one JSON success it reads itself: an endpoint
  // the contract marks otherwise could not keep its promise (a contract's mistake, said when the client is built)
  if (schema === undefined && embeds) {
    throw new Error(
      `${group}.${endpoint}: EmbedsResponses is honoured on an endpoint whose only success is a 200 with a JSON object or array body (no headers schema), not on this one`
    )
  }
  const generalOrNotJson = (response: HttpClientResponse.HttpClientResponse, text: string) =>
    Effect.mapError(general(response), (error) => notJsonError(response, text, error))
  if (schema === undefined) return { declared, decode: generalOrNotJson }
  const decodeBody = BodyDecoder.decodeUnknownExit(schema)
  return {
    declared,
    decode: (response, text) => {
      if (response.status !== 200 || !(embeds || isJson(response.headers["content-type"]))) return generalOrNotJson(response, text)
      let json: unknown
      try {
        // every object key as the body spells it (V8's JSON.parse can misread escaped keys)
        json = Json.parse(text)
      } catch (cause) {
        return Effect.fail(notJsonFailure(response, text, cause))
      }
      // the responses it embeds show none of the request's secrets (the request as sent, credentials included)
      return decodeBody(embeds ? scrubber(secretsOf(response.request)).json(json) : json)
    }
  }
}

const notJsonFailure = (response: HttpClientResponse.HttpClientResponse, text: string, cause: unknown, description = notJson(response, text)) =>
  new HttpClientError.HttpClientError({
    reason: new HttpClientError.DecodeError({ request: response.request, response, description, cause })
  })

/** A form-encoded media type: a body `HttpApiClient.decodeResponse` reads as a form, not as JSON. */
const isForm = (contentType: string | undefined): boolean =>
  contentType !== undefined && contentType.split(";")[0]!.trim().toLowerCase() === "application/x-www-form-urlencoded"

/**
 * A failure of `HttpApiClient.decodeResponse` (the token endpoint's union,
 * say) on a 200 whose body is not JSON (but for a form-encoded one): the
 * same failure as the decoder above gives, said once ({@link notJson}:
 * naming a `content-encoding` the body is still in; and the content type
 * when it is not JSON, a gateway's `text/html` page), not the schema's
 * message (once per member of a union).
 */
const notJsonError = (response: HttpClientResponse.HttpClientResponse, text: string, error: unknown): unknown => {
  const contentType = response.headers["content-type"]
  if (!Schema.isSchemaError(error) || response.status !== 200 || isForm(contentType)) return error
  try {
    Json.parse(text)
    return error
  } catch (cause) {
    const description = notJson(response, text)
    const typed = contentType === undefined || isJson(contentType) || description !== "the body is not JSON"
      ? description
      : `${description} (content-type: ${JSON.stringify(contentType.slice(0, 80))})`
    return notJsonFailure(response, text, cause, typed)
  }
}
