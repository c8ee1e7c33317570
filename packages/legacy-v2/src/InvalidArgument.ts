/**
 * The error of an argument rejected before any request is sent.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * An argument outside what the service accepts (a vehicle-list `limit`
 * outside 1..50, a negative `offset`, an unknown unit system or batch path).
 * Nothing was sent.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { InvalidArgument } from "@connected-vehicle/legacy-v2/InvalidArgument"
 *
 * const failure = Effect.fail(new InvalidArgument({ field: "limit", message: "limit must be an integer from 1 to 50, got 0" }))
 * ```
 * @since 0.1.0
 */
export class InvalidArgument extends Schema.TaggedError<InvalidArgument>()("InvalidArgument", {
  field: Schema.String,
  message: Schema.String
}) {}
