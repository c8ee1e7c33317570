/**
 * Why a local server for tests (Postgres, Redis) could not be started or
 * used: its programs are not installed, it did not start, or a command
 * against it failed.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * A local server failed. `reason` says how: `BinaryMissing` (install the
 * Debian package named in the message), `StartFailed` (the server exited or
 * did not answer in time; its log is in `detail`) or `CommandFailed` (a
 * command against the running server failed).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LocalServerError } from "@connected-vehicle/testing/LocalServerError"
 *
 * const missing = Effect.fail(new LocalServerError({ server: "redis", reason: "BinaryMissing", detail: "apt-get install -y redis-server" }))
 * ```
 * @since 0.1.0
 * @category errors
 */
export class LocalServerError extends Schema.TaggedError<LocalServerError>()("LocalServerError", {
  server: Schema.Literals(["postgres", "redis"]),
  reason: Schema.Literals(["BinaryMissing", "StartFailed", "CommandFailed"]),
  detail: Schema.String
}) {
  override get message() {
    switch (this.reason) {
      case "BinaryMissing":
        return `The ${this.server} server for tests is not installed: ${this.detail}`
      case "StartFailed":
        return `The ${this.server} server for tests did not start: ${this.detail}`
      case "CommandFailed":
        return `A command against the ${this.server} server for tests failed: ${this.detail}`
    }
  }
}
