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
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { Mode, PowertrainFilter, Region } from "./Common.ts"
import { CompatibilityPage } from "./Compatibility.ts"
import { ConnectionResponse, ConnectionsPage } from "./Connection.ts"
import { BatchRequest, BatchResponse, EngineOil, Location, Odometer, ServiceHistory, TirePressure, UnitSystem, VehicleList, Vin } from "./Legacy.ts"
import { AppTokenResponse, OAuthErrorBody, TokenRequest, TokenResponse } from "./OAuth.ts"
import { PageNumber, PageSize } from "./Pagination.ts"
import { ErrorEnvelope } from "./ServiceError.ts"
import { SignalResponse, SignalsPage } from "./Signal.ts"
import { SubscriptionResponse, SubscriptionsPage } from "./Subscription.ts"
import { WebhookResponse, WebhooksPage } from "./Webhook.ts"

// ---------------------------------------------------------------------------
// Error responses: the section 7 envelope, one class per status so that a
// server can tell which status to send and a client which body to expect.
// ---------------------------------------------------------------------------

/**
 * 400 with the error envelope.
 *
 * @example
 * ```ts
 * import { BadRequestResponse } from "@connected-vehicle/schema/Api"
 *
 * const isBadRequestResponse = (u: unknown): u is BadRequestResponse => u instanceof BadRequestResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class BadRequestResponse extends Schema.Class<BadRequestResponse>("BadRequestResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 400 }
) {}

/**
 * 401 with the error envelope.
 *
 * @example
 * ```ts
 * import { UnauthorizedResponse } from "@connected-vehicle/schema/Api"
 *
 * const isUnauthorizedResponse = (u: unknown): u is UnauthorizedResponse => u instanceof UnauthorizedResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class UnauthorizedResponse extends Schema.Class<UnauthorizedResponse>("UnauthorizedResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 401 }
) {}

/**
 * 403 with the error envelope.
 *
 * @example
 * ```ts
 * import { ForbiddenResponse } from "@connected-vehicle/schema/Api"
 *
 * const isForbiddenResponse = (u: unknown): u is ForbiddenResponse => u instanceof ForbiddenResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class ForbiddenResponse extends Schema.Class<ForbiddenResponse>("ForbiddenResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 403 }
) {}

/**
 * 404 with the error envelope.
 *
 * @example
 * ```ts
 * import { NotFoundResponse } from "@connected-vehicle/schema/Api"
 *
 * const isNotFoundResponse = (u: unknown): u is NotFoundResponse => u instanceof NotFoundResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class NotFoundResponse extends Schema.Class<NotFoundResponse>("NotFoundResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 404 }
) {}

/**
 * 409 with the error envelope (COMPATIBILITY, VEHICLE_STATE: status not shown by the spec).
 *
 * @example
 * ```ts
 * import { ConflictResponse } from "@connected-vehicle/schema/Api"
 *
 * const isConflictResponse = (u: unknown): u is ConflictResponse => u instanceof ConflictResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class ConflictResponse extends Schema.Class<ConflictResponse>("ConflictResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 409 }
) {}

/**
 * 429 with the error envelope (RATE_LIMIT: status not shown by the spec).
 *
 * @example
 * ```ts
 * import { RateLimitedResponse } from "@connected-vehicle/schema/Api"
 *
 * const isRateLimitedResponse = (u: unknown): u is RateLimitedResponse => u instanceof RateLimitedResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class RateLimitedResponse extends Schema.Class<RateLimitedResponse>("RateLimitedResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 429 }
) {}

/**
 * 500 with the error envelope.
 *
 * @example
 * ```ts
 * import { ServerErrorResponse } from "@connected-vehicle/schema/Api"
 *
 * const isServerErrorResponse = (u: unknown): u is ServerErrorResponse => u instanceof ServerErrorResponse
 * ```
 * @category responses
 * @since 0.1.0
 */
export class ServerErrorResponse extends Schema.Class<ServerErrorResponse>("ServerErrorResponse")(
  ErrorEnvelope.fields,
  { httpApiStatus: 500 }
) {}

/**
 * OAuth-style error of the authorization server, 400.
 *
 * @example
 * ```ts
 * import { OAuthBadRequest } from "@connected-vehicle/schema/Api"
 *
 * const isOAuthBadRequest = (u: unknown): u is OAuthBadRequest => u instanceof OAuthBadRequest
 * ```
 * @category responses
 * @since 0.1.0
 */
export class OAuthBadRequest extends Schema.Class<OAuthBadRequest>("OAuthBadRequest")(
  OAuthErrorBody.fields,
  { httpApiStatus: 400 }
) {}

/**
 * OAuth-style error of the authorization server, 401 (bad client credential).
 *
 * @example
 * ```ts
 * import { OAuthUnauthorized } from "@connected-vehicle/schema/Api"
 *
 * const isOAuthUnauthorized = (u: unknown): u is OAuthUnauthorized => u instanceof OAuthUnauthorized
 * ```
 * @category responses
 * @since 0.1.0
 */
export class OAuthUnauthorized extends Schema.Class<OAuthUnauthorized>("OAuthUnauthorized")(
  OAuthErrorBody.fields,
  { httpApiStatus: 401 }
) {}

const commonErrors = [
  BadRequestResponse,
  UnauthorizedResponse,
  ForbiddenResponse,
  NotFoundResponse,
  RateLimitedResponse,
  ServerErrorResponse
] as const

const paging = {
  page: Schema.optionalKey(PageNumber),
  pageSize: Schema.optionalKey(PageSize)
}

const bearer = { authorization: Schema.optionalKey(Schema.String) }

// ---------------------------------------------------------------------------
// v3 vehicle API ({base_url})
// ---------------------------------------------------------------------------

/**
 * Signals (section 4.1). `sc-user-id` is required.
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { SignalsGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(SignalsGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export class SignalsGroup extends HttpApiGroup.make("signals").add(
  HttpApiEndpoint.get("list", "/vehicles/:vehicleId/signals", {
    params: { vehicleId: Schema.String },
    query: paging,
    headers: { ...bearer, "sc-user-id": Schema.String },
    success: SignalsPage,
    error: commonErrors
  }),
  HttpApiEndpoint.get("get", "/vehicles/:vehicleId/signals/:signalCode", {
    params: { vehicleId: Schema.String, signalCode: Schema.String },
    headers: { ...bearer, "sc-user-id": Schema.String },
    success: SignalResponse,
    error: commonErrors
  })
) {}

/**
 * Connection list filters (section 4.2).
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
export const ConnectionsQuery = Schema.Struct({
  "filter[userId]": Schema.optionalKey(Schema.String),
  "filter[vehicleId]": Schema.optionalKey(Schema.String),
  "filter[mode]": Schema.optionalKey(Mode),
  "filter[userExternalId]": Schema.optionalKey(Schema.String),
  ...paging
})

/**
 * Connections (section 4.2).
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { ConnectionsGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(ConnectionsGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export class ConnectionsGroup extends HttpApiGroup.make("connections").add(
  HttpApiEndpoint.get("list", "/connections", {
    query: ConnectionsQuery,
    headers: bearer,
    success: ConnectionsPage,
    error: commonErrors
  }),
  HttpApiEndpoint.get("get", "/connections/:connectionId", {
    params: { connectionId: Schema.String },
    headers: bearer,
    success: ConnectionResponse,
    error: commonErrors
  })
) {}

// ---------------------------------------------------------------------------
// v3 management API ({management_url})
// ---------------------------------------------------------------------------

/**
 * Subscription list filters (section 4.3).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SubscriptionsQuery } from "@connected-vehicle/schema/Api"
 *
 * const isSubscriptionsQuery = Schema.is(SubscriptionsQuery)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const SubscriptionsQuery = Schema.Struct({
  "filter[userId]": Schema.optionalKey(Schema.String),
  "filter[webhookId]": Schema.optionalKey(Schema.String),
  "filter[vehicleId]": Schema.optionalKey(Schema.String),
  "filter[mode]": Schema.optionalKey(Mode),
  ...paging
})

/**
 * Subscriptions (section 4.3).
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { SubscriptionsGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(SubscriptionsGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export class SubscriptionsGroup extends HttpApiGroup.make("subscriptions").add(
  HttpApiEndpoint.get("list", "/subscriptions", {
    query: SubscriptionsQuery,
    headers: bearer,
    success: SubscriptionsPage,
    error: commonErrors
  }),
  HttpApiEndpoint.get("get", "/subscriptions/:subscriptionId", {
    params: { subscriptionId: Schema.String },
    headers: bearer,
    success: SubscriptionResponse,
    error: commonErrors
  })
) {}

/**
 * Webhook list filters (section 4.4): name and callback URI match partially and
 * case-insensitively.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WebhooksQuery } from "@connected-vehicle/schema/Api"
 *
 * const isWebhooksQuery = Schema.is(WebhooksQuery)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const WebhooksQuery = Schema.Struct({
  "filter[name]": Schema.optionalKey(Schema.String),
  "filter[callbackUri]": Schema.optionalKey(Schema.String),
  "filter[isEnabled]": Schema.optionalKey(Schema.Boolean),
  "filter[autoSubscribe]": Schema.optionalKey(Schema.Boolean),
  ...paging
})

/**
 * Webhooks (section 4.4).
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { WebhooksGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(WebhooksGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export class WebhooksGroup extends HttpApiGroup.make("webhooks").add(
  HttpApiEndpoint.get("list", "/webhooks", {
    query: WebhooksQuery,
    headers: bearer,
    success: WebhooksPage,
    error: commonErrors
  }),
  HttpApiEndpoint.get("get", "/webhooks/:webhookId", {
    params: { webhookId: Schema.String },
    headers: bearer,
    success: WebhookResponse,
    error: commonErrors
  })
) {}

// ---------------------------------------------------------------------------
// v3 compatibility API ({compat_url})
// ---------------------------------------------------------------------------

/**
 * Compatibility filters (section 4.5).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { CompatibilityQuery } from "@connected-vehicle/schema/Api"
 *
 * const isCompatibilityQuery = Schema.is(CompatibilityQuery)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const CompatibilityQuery = Schema.Struct({
  "filter[region]": Schema.optionalKey(Region),
  "filter[make]": Schema.optionalKey(Schema.String),
  "filter[powertrainType]": Schema.optionalKey(PowertrainFilter)
})

/**
 * Compatible vehicles (section 4.5): no credential.
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { CompatibilityGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(CompatibilityGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export class CompatibilityGroup extends HttpApiGroup.make("compatibility").add(
  HttpApiEndpoint.get("list", "/compatible-vehicles", {
    query: CompatibilityQuery,
    success: CompatibilityPage,
    error: [BadRequestResponse, NotFoundResponse, ServerErrorResponse]
  })
) {}

// ---------------------------------------------------------------------------
// Authorization server ({auth_url})
// ---------------------------------------------------------------------------

/**
 * Consent query (response_type=code).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { AuthorizeQuery } from "@connected-vehicle/schema/Api"
 *
 * const isAuthorizeQuery = Schema.is(AuthorizeQuery)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const AuthorizeQuery = Schema.Struct({
  response_type: Schema.Literal("code"),
  client_id: Schema.String,
  redirect_uri: Schema.String,
  scope: Schema.optionalKey(Schema.String),
  state: Schema.optionalKey(Schema.String),
  mode: Schema.optionalKey(Mode)
})

/**
 * Consent step and token endpoint (sections 4.6 and 5). The client-credentials
 * grant shares `POST /oauth/token` (its endpoint is not shown by the spec).
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { OAuthGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(OAuthGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export class OAuthGroup extends HttpApiGroup.make("oauth").add(
  HttpApiEndpoint.get("authorize", "/oauth/authorize", {
    query: AuthorizeQuery,
    success: HttpApiSchema.Empty(302),
    error: OAuthBadRequest
  }),
  HttpApiEndpoint.post("token", "/oauth/token", {
    headers: { authorization: Schema.String },
    payload: TokenRequest.pipe(HttpApiSchema.asFormUrlEncoded()),
    success: [TokenResponse, AppTokenResponse],
    error: [OAuthBadRequest, OAuthUnauthorized]
  })
) {}

// ---------------------------------------------------------------------------
// Legacy v2.0 ({legacy_url}, paths include /v2.0)
// ---------------------------------------------------------------------------

const legacyRead = <const Name extends string, const Path extends `/${string}`, S extends Schema.Top>(
  name: Name,
  path: Path,
  success: S
) =>
  HttpApiEndpoint.get(name, `/v2.0/vehicles/:id${path}`, {
    params: { id: Schema.String },
    headers: { ...bearer, "sc-unit-system": Schema.optionalKey(UnitSystem) },
    success,
    error: [...commonErrors, ConflictResponse]
  })

/**
 * Legacy vehicle-list paging (section 4.7): `limit` 1..50 (default 10 on the
 * service), `offset` >= 0.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { LegacyVehiclesQuery } from "@connected-vehicle/schema/Api"
 *
 * const isLegacyVehiclesQuery = Schema.is(LegacyVehiclesQuery)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const LegacyVehiclesQuery = Schema.Struct({
  limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 50 }))),
  offset: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)))
})

/**
 * Legacy v2.0 vehicle data (section 4.7). Responses carry the headers
 * `sc-data-age` and `sc-unit-system`. Every operation is marked deprecated
 * (`OpenApi.Deprecated`, `deprecated: true` in the OpenAPI document): v2.0
 * sunsets on December 1, 2026 (section 9).
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { LegacyGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(LegacyGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export class LegacyGroup extends HttpApiGroup.make("legacy").add(
  HttpApiEndpoint.get("vehicles", "/v2.0/vehicles", {
    query: LegacyVehiclesQuery,
    headers: bearer,
    success: VehicleList,
    error: commonErrors
  }),
  legacyRead("odometer", "/odometer", Odometer),
  legacyRead("location", "/location", Location),
  legacyRead("vin", "/vin", Vin),
  legacyRead("engineOil", "/engine/oil", EngineOil),
  legacyRead("tirePressure", "/tires/pressure", TirePressure),
  legacyRead("serviceHistory", "/service/history", ServiceHistory),
  HttpApiEndpoint.post("batch", "/v2.0/vehicles/:id/batch", {
    params: { id: Schema.String },
    headers: { ...bearer, "sc-unit-system": Schema.optionalKey(UnitSystem) },
    payload: BatchRequest,
    success: BatchResponse,
    error: commonErrors
  })
).annotateEndpoints(OpenApi.Deprecated, true) {}

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

const security = OpenApi.annotations({ transform: declareSecurity })

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
