/**
 * The shapes of the legacy batch endpoint (`POST /v2.0/vehicles/{id}/batch`,
 * section 4.7), exported by `Legacy`.
 *
 * @internal
 */
import { Schema } from "effect"

/**
 * `POST /v2.0/vehicles/{id}/batch` request body.
 *
 * @example
 * ```ts
 * import type { BatchRequest } from "@connected-vehicle/schema/Legacy"
 *
 * const body: BatchRequest = { requests: [{ path: "/odometer" }, { path: "/vin" }] }
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const BatchRequest = Schema.Struct({
  requests: Schema.NonEmptyArray(Schema.Struct({ path: Schema.String }))
}).annotate({ identifier: "BatchRequest" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BatchRequest } from "@connected-vehicle/schema/Legacy"
 *
 * const isBatchRequest: (u: unknown) => u is BatchRequest = Schema.is(BatchRequest)
 * ```
 * @category models
 * @since 0.1.0
 */
export type BatchRequest = typeof BatchRequest.Type

/**
 * Headers of a batch item (and of every legacy read response).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BatchItemHeaders } from "@connected-vehicle/schema/Legacy"
 *
 * const isBatchItemHeaders = Schema.is(BatchItemHeaders)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const BatchItemHeaders = Schema.StructWithRest(
  Schema.Struct({
    "sc-data-age": Schema.optionalKey(Schema.String),
    "sc-unit-system": Schema.optionalKey(Schema.String)
  }),
  [Schema.Record(Schema.String, Schema.String)]
)

/**
 * One answered sub-request. Its `body` is decoded separately, by its `path`
 * (`decodeBatchBody` of `Legacy`), so that one malformed entry never fails the others.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BatchItem } from "@connected-vehicle/schema/Legacy"
 *
 * const isBatchItem = Schema.is(BatchItem)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const BatchItem = Schema.Struct({
  path: Schema.String,
  body: Schema.Unknown,
  code: Schema.Int,
  headers: BatchItemHeaders
}).annotate({ identifier: "BatchItem" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BatchItem } from "@connected-vehicle/schema/Legacy"
 *
 * const isBatchItem: (u: unknown) => u is BatchItem = Schema.is(BatchItem)
 * ```
 * @category models
 * @since 0.1.0
 */
export type BatchItem = typeof BatchItem.Type

/**
 * `POST /v2.0/vehicles/{id}/batch` response.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BatchResponse } from "@connected-vehicle/schema/Legacy"
 *
 * const isBatchResponse = Schema.is(BatchResponse)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const BatchResponse = Schema.Struct({
  responses: Schema.Array(BatchItem)
}).annotate({ identifier: "BatchResponse" })

/**
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BatchResponse } from "@connected-vehicle/schema/Legacy"
 *
 * const isBatchResponse: (u: unknown) => u is BatchResponse = Schema.is(BatchResponse)
 * ```
 * @category models
 * @since 0.1.0
 */
export type BatchResponse = typeof BatchResponse.Type
