/**
 * Errors of the sample app itself (not of the service or the transport).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * A problem the CLI detected: missing configuration, no stored token, an
 * unexpected redirect in the consent flow... `reason` never contains a secret.
 *
 * @example
 * ```ts
 * import { SampleError } from "@connected-vehicle/sample/SampleError"
 *
 * new SampleError({ reason: "No token stored; run `login` first" })
 * ```
 * @since 0.1.0
 * @category errors
 */
export class SampleError extends Schema.TaggedError<SampleError>()("SampleError", {
  reason: Schema.String,
  /** A usage error (bad or missing flags): exit code 2. */
  usage: Schema.optionalKey(Schema.Boolean)
}) {
  override get message() {
    return this.reason
  }
}
