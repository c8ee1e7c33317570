/**
 * Annotations of the contract's endpoints for the clients that call them.
 *
 * @internal
 */
import { Context } from "effect"

/**
 * The annotation (`true`) of an endpoint whose success body embeds the
 * responses to the request itself, as the server wrote them (the legacy
 * batch: each entry's headers, code and body). A client treats such a body
 * as it treats the server's text of an error response: whatever the request
 * carried that must not be shown (its credentials) is taken out of it
 * before it is decoded.
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
export class EmbedsResponses extends Context.Service<EmbedsResponses, boolean>()("@connected-vehicle/schema/Api/EmbedsResponses") {}
