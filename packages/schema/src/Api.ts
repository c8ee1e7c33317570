/**
 * The HTTP contract of the whole service, written once with `effect/http-api`:
 * the simulator serves it, the clients call it, and `/openapi.json` is derived
 * from it.
 *
 * Query parameter names the spec does not show follow one JSON:API style
 * everywhere: paging is `page` and `pageSize` (as in the spec's signal links),
 * filters are `filter[<field>]` (as in the compatibility listing).
 *
 * Each root of the spec has its own API (paths relative to that root), and
 * {@link ServiceApi} mounts all of them on one origin the way the simulator
 * serves them (`/v3/...`, `/oauth/...`, `/v2.0/...`).
 *
 * @since 0.1.0
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { EmbedsResponses } from "./internal/api/annotations.ts"
import { AuthorizeQuery, OAuthGroup } from "./internal/api/authorization.ts"
import { CompatibilityFilters, CompatibilityGroup, CompatibilityQuery } from "./internal/api/compatibility.ts"
import { declareRetryAfter, openObjects, pathServers } from "./internal/api/document.ts"
import { LegacyGroup, LegacyVehiclesQuery } from "./internal/api/legacy.ts"
import { SubscriptionsGroup, SubscriptionsQuery, WebhooksFilters, WebhooksGroup, WebhooksQuery } from "./internal/api/management.ts"
import { ConnectionsGroup, ConnectionsQuery, SignalsGroup } from "./internal/api/vehicle.ts"

/**
 * The error responses: the section 7 envelope, one class per status (400, 401,
 * 403, 404, 409, 415, 429, 500) so that a server can tell which status to send
 * and a client which body to expect; and the OAuth-style errors of the
 * authorization server (400, 401, 415, 500). Each class is documented where it is
 * defined.
 *
 * @example
 * ```ts
 * import { NotFoundResponse, RateLimitedResponse } from "@connected-vehicle/schema/Api"
 *
 * const isRetryable = (u: unknown) => u instanceof RateLimitedResponse && !(u instanceof NotFoundResponse)
 * ```
 * @category responses
 * @since 0.1.0
 */
export {
  BadRequestResponse,
  ConflictResponse,
  ForbiddenResponse,
  NotFoundResponse,
  OAuthBadRequest,
  OAuthServerError,
  OAuthUnauthorized,
  OAuthUnsupportedMediaType,
  RateLimitedResponse,
  ServerErrorResponse,
  UnauthorizedResponse,
  UnsupportedMediaTypeResponse
} from "./internal/api/responses.ts"

/**
 * The groups of the contract, one per concept of the spec: signals and
 * connections (`{base_url}`), subscriptions and webhooks (`{management_url}`),
 * compatibility (`{compat_url}`), the authorization server (`{auth_url}`) and
 * the legacy v2.0 interface (`{legacy_url}`). Each group is documented where it
 * is defined.
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { ConnectionsGroup, SignalsGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(SignalsGroup).add(ConnectionsGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export { CompatibilityGroup, ConnectionsGroup, LegacyGroup, OAuthGroup, SignalsGroup, SubscriptionsGroup, WebhooksGroup }

/**
 * The query schemas of the groups: the JSON:API-style list filters and paging
 * of the v3 lists, the consent query of the authorization server and the
 * legacy vehicle-list paging; and, for the two lists that answer every query
 * with 200 (the compatibility listing and the webhook list), the allowed
 * values a client checks its arguments with (`CompatibilityFilters`,
 * `WebhooksFilters`). Each schema is documented where it is defined.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ConnectionsQuery } from "@connected-vehicle/schema/Api"
 *
 * const isConnectionsQuery = Schema.is(ConnectionsQuery)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export { AuthorizeQuery, CompatibilityFilters, CompatibilityQuery, ConnectionsQuery, LegacyVehiclesQuery, SubscriptionsQuery, WebhooksFilters, WebhooksQuery }

/**
 * The annotations of the contract's endpoints for the clients that call them:
 * `EmbedsResponses` (`true`) marks an endpoint whose success body embeds the
 * responses to the request itself (the legacy batch), which a client scrubs
 * of the request's credentials as it does an error body. The transport honours
 * it on an endpoint whose only success is a 200 with a JSON object or array
 * body, and refuses to build a client of an endpoint marked otherwise.
 * Documented where it is defined.
 *
 * @example
 * ```ts
 * import { Context } from "effect"
 * import { HttpApiEndpoint } from "effect/http-api"
 * import { EmbedsResponses } from "@connected-vehicle/schema/Api"
 *
 * const endpoint = HttpApiEndpoint.post("batch", "/batch").annotate(EmbedsResponses, true)
 * Context.getOrUndefined(endpoint.annotations, EmbedsResponses) // true
 * ```
 * @category annotations
 * @since 0.3.0
 */
export { EmbedsResponses }

// ---------------------------------------------------------------------------
// APIs per root, and the whole service on one origin
// ---------------------------------------------------------------------------

/**
 * Declares the credentials in the OpenAPI document: `bearerAuth` (HTTP bearer)
 * on every operation that takes an `authorization` header, `basicAuth` (the
 * client credential) on the token endpoint; the `authorization` header
 * parameter itself is removed (OpenAPI 3.1 ignores it). Clients keep sending
 * the header themselves: this only changes the generated document.
 *
 * @example
 * ```ts
 * import { HttpApi, OpenApi } from "effect/http-api"
 * import { declareSecurity, SignalsGroup } from "@connected-vehicle/schema/Api"
 *
 * const api = HttpApi.make("signals").add(SignalsGroup).annotateMerge(OpenApi.annotations({ transform: declareSecurity }))
 * ```
 * @category utils
 * @since 0.1.0
 */
export const declareSecurity = (spec: Record<string, any>): Record<string, any> => {
  const paths: Record<string, Record<string, any>> = {}
  for (const [path, item] of Object.entries<Record<string, any>>(spec.paths ?? {})) {
    const operations: Record<string, any> = {}
    for (const [method, op] of Object.entries<any>(item)) {
      const parameters: ReadonlyArray<any> | undefined = op?.parameters
      const auth = parameters?.some((p) => p.in === "header" && String(p.name).toLowerCase() === "authorization")
      operations[method] = !auth ? op : {
        ...op,
        parameters: parameters!.filter((p) => !(p.in === "header" && String(p.name).toLowerCase() === "authorization")),
        security: [path.endsWith("/oauth/token") ? { basicAuth: [] } : { bearerAuth: [] }]
      }
    }
    paths[path] = operations
  }
  return {
    ...spec,
    paths,
    components: {
      ...spec.components,
      securitySchemes: {
        ...spec.components?.securitySchemes,
        bearerAuth: { type: "http", scheme: "bearer", description: "Access token from POST /oauth/token" },
        basicAuth: { type: "http", scheme: "basic", description: "Client credential: base64(client_id:client_secret)" }
      }
    }
  }
}

/**
 * The whole OpenAPI document as the contract gives it: the credentials
 * ({@link declareSecurity}), `Retry-After` on every 429, and every object
 * open (no `additionalProperties: false`: the service may add fields to a
 * response, and ignores unknown fields of a request body). Each API of this
 * module carries it as its `OpenApi.Transform`; it changes only the
 * generated document.
 *
 * @example
 * ```ts
 * import { HttpApi, OpenApi } from "effect/http-api"
 * import { completeDocument, SignalsGroup } from "@connected-vehicle/schema/Api"
 *
 * const api = HttpApi.make("signals").add(SignalsGroup).annotateMerge(OpenApi.annotations({ transform: completeDocument }))
 * ```
 * @category utils
 * @since 0.2.0
 */
export const completeDocument = (spec: Record<string, any>): Record<string, any> =>
  openObjects(declareRetryAfter(declareSecurity(spec)))

const security = OpenApi.annotations({ transform: completeDocument })

/**
 * Sets the server of each path of an OpenAPI document (OpenAPI 3.1
 * path-level `servers`): `serverOf` gives the origin serving a path, such as
 * `/v3/webhooks` or `/oauth/token` (`undefined` leaves the path on the
 * document's servers). For the service with its roots on separate origins
 * (`{base_url}`, `{management_url}`, `{auth_url}`...), so that a client
 * generated from the document, or a try-it button, sends each operation to
 * its root; with one origin, there is nothing to set.
 *
 * @example
 * ```ts
 * import { OpenApi } from "effect/http-api"
 * import { completeDocument, ServiceApi, withPathServers } from "@connected-vehicle/schema/Api"
 *
 * const split = withPathServers((path) => path.startsWith("/oauth") ? "https://auth.example" : "https://api.example")
 * const api = ServiceApi.annotateMerge(OpenApi.annotations({ transform: (spec) => split(completeDocument(spec)) }))
 * ```
 * @category utils
 * @since 0.4.0
 */
export const withPathServers: (
  serverOf: (path: string) => string | undefined
) => (spec: Record<string, any>) => Record<string, any> = pathServers

/**
 * `{base_url}`: signals and connections.
 *
 * @example
 * ```ts
 * import { OpenApi } from "effect/http-api"
 * import { VehicleApi } from "@connected-vehicle/schema/Api"
 *
 * const spec = OpenApi.fromApi(VehicleApi)
 * ```
 * @category api
 * @since 0.1.0
 */
export class VehicleApi extends HttpApi.make("vehicle").add(SignalsGroup).add(ConnectionsGroup).annotateMerge(security) {}

/**
 * `{management_url}`: subscriptions and webhooks.
 *
 * @example
 * ```ts
 * import { OpenApi } from "effect/http-api"
 * import { ManagementApi } from "@connected-vehicle/schema/Api"
 *
 * const spec = OpenApi.fromApi(ManagementApi)
 * ```
 * @category api
 * @since 0.1.0
 */
export class ManagementApi extends HttpApi.make("management").add(SubscriptionsGroup).add(WebhooksGroup).annotateMerge(security) {}

/**
 * `{compat_url}`: the compatibility listing.
 *
 * @example
 * ```ts
 * import { OpenApi } from "effect/http-api"
 * import { CompatibilityApi } from "@connected-vehicle/schema/Api"
 *
 * const spec = OpenApi.fromApi(CompatibilityApi)
 * ```
 * @category api
 * @since 0.1.0
 */
export class CompatibilityApi extends HttpApi.make("compatibility").add(CompatibilityGroup).annotateMerge(security) {}

/**
 * `{auth_url}`: the authorization server.
 *
 * @example
 * ```ts
 * import { OpenApi } from "effect/http-api"
 * import { AuthorizationApi } from "@connected-vehicle/schema/Api"
 *
 * const spec = OpenApi.fromApi(AuthorizationApi)
 * ```
 * @category api
 * @since 0.1.0
 */
export class AuthorizationApi extends HttpApi.make("authorization").add(OAuthGroup).annotateMerge(security) {}

/**
 * `{legacy_url}`: the v2.0 interface.
 *
 * @example
 * ```ts
 * import { OpenApi } from "effect/http-api"
 * import { LegacyApi } from "@connected-vehicle/schema/Api"
 *
 * const spec = OpenApi.fromApi(LegacyApi)
 * ```
 * @category api
 * @since 0.1.0
 */
export class LegacyApi extends HttpApi.make("legacy").add(LegacyGroup).annotateMerge(security) {}

/**
 * The whole service on one origin: v3 groups under `/v3`, the authorization
 * server under `/oauth`, the legacy interface under `/v2.0`.
 *
 * @example
 * ```ts
 * import { OpenApi } from "effect/http-api"
 * import { ServiceApi } from "@connected-vehicle/schema/Api"
 *
 * const document = OpenApi.fromApi(ServiceApi)
 * ```
 * @category api
 * @since 0.1.0
 */
export class ServiceApi extends HttpApi.make("connected-vehicle")
  .add(SignalsGroup.prefix("/v3"))
  .add(ConnectionsGroup.prefix("/v3"))
  .add(SubscriptionsGroup.prefix("/v3"))
  .add(WebhooksGroup.prefix("/v3"))
  .add(CompatibilityGroup.prefix("/v3"))
  .add(OAuthGroup)
  .add(LegacyGroup)
  .annotateMerge(OpenApi.annotations({
    title: "Connected-Vehicle Data Service",
    description: "v3 vehicle, management and compatibility APIs, the authorization server and the legacy v2.0 API."
  }))
  .annotateMerge(security)
{}
