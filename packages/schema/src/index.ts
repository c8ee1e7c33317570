/**
 * Effect Schemas of every shape of the connected-vehicle data service and its HttpApi contract.
 *
 * @since 0.1.0
 */
/**
 * The HTTP contract of the whole service, written once with `effect/http-api`:
 * the simulator serves it, the clients call it, and `/openapi.json` is derived
 * from it.
 *
 * @example
 * ```ts
 * import { Api } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Api from "./Api.ts"
/**
 * Building blocks shared by every resource: timestamps, open enumerations,
 * links and relationship objects.
 *
 * @example
 * ```ts
 * import { Common } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Common from "./Common.ts"
/**
 * The compatibility listing (section 2.6).
 *
 * @example
 * ```ts
 * import { Compatibility } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Compatibility from "./Compatibility.ts"
/**
 * The connection resource (section 2.3): list form and single form.
 *
 * @example
 * ```ts
 * import { Connection } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Connection from "./Connection.ts"
/**
 * The error of a client argument rejected before any request is sent, and
 * {@link validate}, which checks an argument against a contract schema (a
 * query of `Api.ts`, `UnitSystem`, {@link Identifier}, ...) and turns the
 * first schema issue into that error, naming the field.
 *
 * @example
 * ```ts
 * import { InvalidArgument } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as InvalidArgument from "./InvalidArgument.ts"
/**
 * JSON text read with the object keys it spells.
 *
 * @example
 * ```ts
 * import { Json } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.2.0
 */
export * as Json from "./Json.ts"
/**
 * How the SDK's error messages show text from outside: escaped
 * (`escapeControls`) and at most 2,048 characters (`boundedMessage`).
 *
 * @example
 * ```ts
 * import { Message } from "@connected-vehicle/schema"
 *
 * Message.boundedMessage("\u001b[31mred") // "\\u001b[31mred"
 * ```
 * @category modules
 * @since 0.5.0
 */
export * as Message from "./Message.ts"
/**
 * The legacy v2.0 shapes (section 2.8).
 *
 * @example
 * ```ts
 * import { Legacy } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Legacy from "./Legacy.ts"
/**
 * Token exchange shapes (sections 4.6 and 5).
 *
 * @example
 * ```ts
 * import { OAuth } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as OAuth from "./OAuth.ts"
/**
 * Page envelopes of section 2.7: `meta` variants and the list `links` object.
 *
 * @example
 * ```ts
 * import { Pagination } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Pagination from "./Pagination.ts"
/**
 * The query parameters and headers that may carry a credential, which no error or log shows.
 *
 * @example
 * ```ts
 * import { Redaction } from "@connected-vehicle/schema"
 *
 * Redaction.isCredentialParameter("client_secret") // true
 * ```
 * @category modules
 * @since 0.2.0
 */
export * as Redaction from "./Redaction.ts"
/**
 * The error envelope of section 7.
 *
 * @example
 * ```ts
 * import { ServiceError } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as ServiceError from "./ServiceError.ts"
/**
 * The reasons of a failed call that the service answered (section 7), one class per error type.
 *
 * @example
 * ```ts
 * import { ServiceReason } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.2.0
 */
export * as ServiceReason from "./ServiceReason.ts"
/**
 * The signal resource (section 2.1), its per-signal error and its envelopes.
 *
 * @example
 * ```ts
 * import { Signal } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Signal from "./Signal.ts"
/**
 * The subscription resource (section 2.4).
 *
 * @example
 * ```ts
 * import { Subscription } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Subscription from "./Subscription.ts"
/**
 * The vehicle resource (section 2.2), returned under `included.vehicle`.
 *
 * @example
 * ```ts
 * import { Vehicle } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Vehicle from "./Vehicle.ts"
/**
 * The webhook resource (section 2.5).
 *
 * @example
 * ```ts
 * import { Webhook } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.1.0
 */
export * as Webhook from "./Webhook.ts"
/**
 * The events the service delivers to a webhook's `callbackUri` and
 * `errorCallbackUri` (section 6 leaves the payload "not shown"; the shapes
 * follow the real service's public documentation): `VERIFY`, `VEHICLE_STATE`
 * and `VEHICLE_ERROR`, as a union tagged on `eventType`. An `eventType` this
 * SDK does not know yet decodes to an {@link UnknownEvent} instead of failing.
 *
 * @example
 * ```ts
 * import { WebhookEvent } from "@connected-vehicle/schema"
 * ```
 * @category modules
 * @since 0.2.0
 */
export * as WebhookEvent from "./WebhookEvent.ts"
