/**
 * The error of an argument rejected before any request is sent.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * An argument outside what the service accepts (page size outside 1..100,
 * page below 1, an unknown region, powertrain or mode). Nothing was sent.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { InvalidArgument } from "@connected-vehicle/v3/InvalidArgument"
 *
 * const failure = Effect.fail(new InvalidArgument({ field: "pageSize", message: "pageSize must be an integer from 1 to 100, got 0" }))
 * ```
 * @since 0.1.0
 */
export class InvalidArgument extends Schema.TaggedError<InvalidArgument>()("InvalidArgument", {
  field: Schema.String,
  message: Schema.String
}) {}
