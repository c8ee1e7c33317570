/**
 * The group of the authorization server (`{auth_url}`): consent step and token
 * endpoint.
 *
 * @internal
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ModeValues } from "../../Common.ts"
import { AppTokenResponse, TokenRequest, TokenResponse } from "../../OAuth.ts"
import { requiredHeader, responseHeaders } from "./document.ts"
import { OAuthBadRequest, OAuthServerError, OAuthUnauthorized, OAuthUnsupportedMediaType } from "./responses.ts"

/**
 * Consent query (response_type=code). `mode` takes `test` too, the
 * service's own spelling of `simulated`; `login_hint` names the user who
 * signs in (the simulator consents on their behalf at once).
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
  mode: Schema.optionalKey(
    Schema.Literals([...ModeValues, "test"]).annotate({
      description: "live (default) or simulated; test is the service's own spelling of simulated"
    })
  ),
  login_hint: Schema.optionalKey(
    Schema.String.annotate({ description: "The user who signs in (user id or external id)" })
  )
})

const USER_AGENT_DESCRIPTION =
  "Section 4.6: a User-Agent value is required (normally set by the HTTP client; without one the token endpoint answers 400 invalid_request)"

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
    error: [OAuthBadRequest, OAuthServerError]
  }).annotate(
    OpenApi.Transform,
    responseHeaders({
      "302": { location: { description: "redirect_uri with code and state, or with error, error_description and state (RFC 6749 section 4.1.2.1)", required: true } }
    })
  ),
  HttpApiEndpoint.post("token", "/oauth/token", {
    // section 4.6: a User-Agent value is required, normally set by the HTTP client (the
    // transport sets one on every request): optional for a caller of the contract, required in the document
    headers: { authorization: Schema.String, "user-agent": Schema.optionalKey(Schema.String) },
    payload: TokenRequest.pipe(HttpApiSchema.asFormUrlEncoded()),
    success: [TokenResponse, AppTokenResponse],
    error: [OAuthBadRequest, OAuthUnauthorized, OAuthUnsupportedMediaType, OAuthServerError]
  }).annotate(OpenApi.Transform, requiredHeader("user-agent", USER_AGENT_DESCRIPTION))
) {}
