/**
 * The error of a client argument rejected before any request is sent, and
 * {@link validate}, which checks an argument against a contract schema (a
 * query of `Api.ts`, `UnitSystem`, {@link Identifier}, ...) and turns the
 * first schema issue into that error, naming the field.
 *
 * @since 0.1.0
 */
import { Effect, Result, Schema, SchemaIssue } from "effect"

/**
 * An argument outside what the service accepts (a page size outside 1..100,
 * an unknown mode, an empty id, ...). Nothing was sent. The one error of an
 * argument refused before sending, by the SDK's clients (v3, legacy-v2) and
 * by the transport alike (`field` names the argument, or the contract's
 * parameter when the transport refused it).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
 *
 * const failure = Effect.fail(new InvalidArgument({ field: "pageSize", message: "pageSize: Expected a value between 1 and 100, got 0" }))
 * ```
 * @category errors
 * @since 0.1.0
 */
export class InvalidArgument extends Schema.TaggedError<InvalidArgument>()("InvalidArgument", {
  field: Schema.String,
  message: Schema.String
}) {}

/** Why `s` is not an {@link Identifier}, `undefined` when it is one: the one definition of the rule. */

// one pass over the characters (no regular expression: the check runs on
// every identifier of every call, where each step runs cold), then the
// issues in the order of the rule
const identifierIssue = (s: string): string | undefined => {
  if (s.length === 0) return "Expected a non-empty string"
  let control = false
  let slash = false
  let lone = false
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    // C0, DEL and C1 (U+0080-U+009F: U+009B starts an escape sequence on some terminals)
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) control = true
    else if (c === 0x2f) slash = true
    else if (c >= 0xd800 && c <= 0xdfff) {
      // a high surrogate followed by a low one is a pair; any other is lone
      // (`encodeURIComponent` throws on it, and no byte sequence can carry it)
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++
      else lone = true
    }
  }
  return control
    ? "Expected a string without control characters"
    : slash
    ? "Expected a string without \"/\""
    : lone
    ? "Expected well-formed Unicode (a lone surrogate cannot be sent)"
    : s === "." || s === ".."
    ? "Expected a string other than \".\" and \"..\""
    : undefined
}

/**
 * An identifier sent in a path or a header (vehicle id, user id, signal code,
 * connection / subscription / webhook id): a non-empty string without control
 * characters (a CR or LF would break the request line or a header), without a
 * lone surrogate (it has no UTF-8 form), without `/`, and other than `.` and `..` (a path segment that a URL parser, a proxy
 * or the server could resolve against the rest of the path). The transport
 * applies the same rule to every path parameter.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Identifier } from "@connected-vehicle/schema/InvalidArgument"
 *
 * Schema.is(Identifier)("veh_1") // true
 * Schema.is(Identifier)("") // false
 * Schema.is(Identifier)("..") // false
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const Identifier = Schema.String.check(
  Schema.makeFilter((s: string) => {
    const issue = identifierIssue(s)
    return issue === undefined ? true : `${issue}, got ${JSON.stringify(s)}`
  }, { expected: "an identifier (non-empty, no control character, no lone surrogate, no \"/\", not \".\" or \"..\")" })
)

/**
 * What {@link Identifier} accepts, as a plain predicate (no schema run): for
 * the common case of a valid id.
 *
 * @example
 * ```ts
 * import { isIdentifier } from "@connected-vehicle/schema/InvalidArgument"
 *
 * isIdentifier("veh_1") // true
 * isIdentifier("a/b") // false
 * ```
 * @category guards
 * @since 0.1.0
 */
export const isIdentifier = (u: unknown): u is string => typeof u === "string" && identifierIssue(u) === undefined

/**
 * Why `s` cannot be sent as the value of an HTTP header as it is, `undefined`
 * when it can: a character other than a tab, U+0020-U+007E and
 * U+0080-U+00FF (RFC 9110 field content; an HTTP client refuses any other,
 * or sends other bytes). With `exact` (a credential, an identifier: the
 * value that arrives must be the one given), also an empty value and one with
 * a leading or trailing space or tab (the receiver takes them off). The value
 * is never quoted (it may be a secret): the one rule of every header value
 * the SDK is given (a `User-Agent`, an access token).
 *
 * @example
 * ```ts
 * import { headerValueIssue } from "@connected-vehicle/schema/InvalidArgument"
 *
 * headerValueIssue("sdk/1.0") // undefined
 * headerValueIssue("sdk\u2713") // "Expected only a tab, U+0020-U+007E and U+0080-U+00FF (a header value)"
 * headerValueIssue(" token", true) // "Expected no leading or trailing space or tab (a header value)"
 * ```
 * @category validation
 * @since 0.2.0
 */
export const headerValueIssue = (s: string, exact = false): string | undefined => {
  if (exact && s.length === 0) return "Expected a non-empty string"
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c !== 0x09 && (c < 0x20 || c === 0x7f || c > 0xff)) return "Expected only a tab, U+0020-U+007E and U+0080-U+00FF (a header value)"
  }
  return exact && (isBlank(s.charCodeAt(0)) || isBlank(s.charCodeAt(s.length - 1)))
    ? "Expected no leading or trailing space or tab (a header value)"
    : undefined
}

const isBlank = (c: number) => c === 0x20 || c === 0x09

/**
 * Why `s`, an {@link Identifier}, cannot be sent as it is in a header: an
 * empty or blank value, a leading or trailing space (taken off by the
 * receiver), a `,` (read as a list: a repeated header) or a character outside
 * printable ASCII (U+0020-U+007E: another byte sequence than the one given).
 */
const headerIdentifierIssue = (s: string): string | undefined => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20 || c > 0x7e) return "Expected only printable ASCII (U+0020-U+007E) in a header"
    if (c === 0x2c) return "Expected no \",\" in a header (a comma separates repeated values)"
  }
  return headerValueIssue(s, true) === undefined ? undefined : "Expected a non-blank value without leading or trailing spaces in a header"
}

/**
 * An {@link Identifier} sent in a header (the `sc-user-id` of the signal
 * reads): also printable ASCII only (U+0020-U+007E), without a `,` (a
 * receiver reads a list: a repeated header), not blank and without a leading
 * or trailing space (a receiver takes them off). Each arrives as the value
 * given.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { HeaderIdentifier } from "@connected-vehicle/schema/InvalidArgument"
 *
 * Schema.is(HeaderIdentifier)("usr_1") // true
 * Schema.is(HeaderIdentifier)(" usr_1") // false
 * Schema.is(HeaderIdentifier)("u1, u2") // false
 * Schema.is(HeaderIdentifier)("usér") // false
 * ```
 * @category schemas
 * @since 0.2.0
 */
export const HeaderIdentifier = Identifier.check(
  Schema.makeFilter((s: string) => {
    const issue = headerIdentifierIssue(s)
    return issue === undefined ? true : `${issue}, got ${JSON.stringify(s)}`
  }, { expected: "an identifier a header carries as it is (printable ASCII, no \",\", no leading or trailing space)" })
)

/**
 * What {@link HeaderIdentifier} accepts, as a plain predicate (no schema run).
 *
 * @example
 * ```ts
 * import { isHeaderIdentifier } from "@connected-vehicle/schema/InvalidArgument"
 *
 * isHeaderIdentifier("usr_1") // true
 * isHeaderIdentifier("  usr_1  ") // false
 * ```
 * @category guards
 * @since 0.2.0
 */
export const isHeaderIdentifier = (u: unknown): u is string => isIdentifier(u) && headerIdentifierIssue(u) === undefined

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Options of {@link validate}.
 *
 * @example
 * ```ts
 * import type { ValidateOptions } from "@connected-vehicle/schema/InvalidArgument"
 *
 * const options: ValidateOptions = { field: "vehicleId", rename: (key) => key === "vehicle_id" ? "vehicleId" : key }
 * ```
 * @category models
 * @since 0.1.0
 */
export interface ValidateOptions {
  /** The field named when the issue is on the input itself (default `"arguments"`). */
  readonly field?: string | undefined
  /** Maps the first key of the issue's path (a wire name) to the caller's name. */
  readonly rename?: ((key: string) => string) | undefined
}

/**
 * Decodes `input` with `schema`; on failure, an {@link InvalidArgument}
 * naming the field of the first issue (`options.field` when the issue is on
 * the input itself, e.g. `null` given for an object).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConnectionsQuery } from "@connected-vehicle/schema/Api"
 * import { validate } from "@connected-vehicle/schema/InvalidArgument"
 *
 * // fails with InvalidArgument { field: "pageSize", message: "pageSize: Expected a value between 1 and 100, got 0" }
 * const query = validate(ConnectionsQuery, { pageSize: 0 })
 * ```
 * @category validation
 * @since 0.1.0
 */
export const validate = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  input: unknown,
  options?: ValidateOptions
): Effect.Effect<S["Type"], InvalidArgument> => {
  const result = Schema.decodeUnknownResult(schema, { reportInput: true })(input)
  return Result.isSuccess(result) ? Effect.succeed(result.success) : Effect.fail(fromIssue(result.failure.issue, options))
}

/**
 * The {@link InvalidArgument} of a schema issue (a decoding or an encoding
 * failure): the field of its first issue, as {@link validate} names it.
 *
 * @example
 * ```ts
 * import { Result, Schema } from "effect"
 * import { Identifier, fromIssue } from "@connected-vehicle/schema/InvalidArgument"
 *
 * const result = Schema.decodeUnknownResult(Identifier)("..")
 * // InvalidArgument { field: "connectionId", message: "connectionId: Expected a string other than \".\" and \"..\", got \"..\"" }
 * const error = Result.isFailure(result) ? fromIssue(result.failure.issue, { field: "connectionId" }) : undefined
 * ```
 * @category constructors
 * @since 0.1.0
 */
export const fromIssue = (issue: SchemaIssue.Issue, options?: ValidateOptions): InvalidArgument => {
  const first = formatter(issue).issues[0]
  const firstPath = first?.path ?? []
  const key = firstPath[0]
  const field = key === undefined
    ? options?.field ?? "arguments"
    : options?.rename === undefined
    ? String(key)
    : options.rename(String(key))
  const path = [field, ...firstPath.slice(1).map(String)]
  const message = first?.message ?? String(issue)
  return new InvalidArgument({ field, message: `${path.join(".")}: ${message}` })
}
