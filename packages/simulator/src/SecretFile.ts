/**
 * Reading a secret (a client secret, a webhook secret, a token) from a file,
 * as a CLI's `--secret-file` flag does: regular files only (a symbolic link
 * to one is fine), a bounded number of bytes. The file is looked at before
 * it is opened, so a device such as `/dev/zero`, a named pipe, a directory
 * or a socket is never opened: neither read without end nor waited on. Every
 * failure is one {@link SecretFileError} whose `reason` says why; no message
 * holds the file's content. {@link secretText} is the rule of a secret given
 * as text (a file's, or a variable's of the environment): trimmed, no control
 * character.
 *
 * @since 0.2.0
 */
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { secretText } from "@connected-vehicle/schema/Redaction"
import { Effect, FileSystem, Option, Result, Schema } from "effect"
import type { PlatformError } from "effect"

/**
 * The most bytes {@link read} reads by default (64 KiB): far more than any
 * secret (tens or hundreds of characters), so that a file this large is not
 * one, and is refused without reading the rest.
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_BYTES } from "@connected-vehicle/simulator/SecretFile"
 *
 * DEFAULT_MAX_BYTES // 65536
 * ```
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_MAX_BYTES = 64 * 1024

const described = {
  Directory: "a directory",
  SymbolicLink: "a symbolic link",
  BlockDevice: "a block device",
  CharacterDevice: "a character device",
  FIFO: "a named pipe",
  Socket: "a socket",
  Unknown: "of an unknown type"
} as const

/**
 * The path is not a regular file (nor a symbolic link to one): `kind` is
 * what it is (`FileSystem.File.Type`: `"CharacterDevice"` for `/dev/zero`,
 * `"FIFO"` for a named pipe, `"Directory"`...). It was not opened.
 *
 * @example
 * ```ts
 * import { NotARegularFile } from "@connected-vehicle/simulator/SecretFile"
 *
 * new NotARegularFile({ kind: "FIFO" }).message // "not a regular file (a named pipe)"
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class NotARegularFile extends Schema.TaggedError<NotARegularFile>()("NotARegularFile", {
  kind: Schema.Literals(["Directory", "SymbolicLink", "BlockDevice", "CharacterDevice", "FIFO", "Socket", "Unknown"])
}) {
  override get message() {
    return `not a regular file (${described[this.kind]})`
  }
}

/**
 * The file holds more than `maxBytes` bytes; no more than `maxBytes + 1` of
 * them were read.
 *
 * @example
 * ```ts
 * import { TooLarge } from "@connected-vehicle/simulator/SecretFile"
 *
 * new TooLarge({ maxBytes: 4096 }).message // "larger than 4096 bytes"
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class TooLarge extends Schema.TaggedError<TooLarge>()("TooLarge", {
  maxBytes: Schema.Int
}) {
  override get message() {
    return `larger than ${this.maxBytes} bytes`
  }
}

/**
 * The file could not be looked at, opened or read: `code` is the system's
 * error code (`ENOENT`, `EACCES`, `EISDIR`...), else the platform error's
 * reason (`NotFound`, `PermissionDenied`...); `cause` is the platform error.
 * A file read whole that is no secret's text has the code `EILSEQ` (an
 * illegal byte sequence) and a `detail` saying why: `"not UTF-8 text"` (a
 * binary file, another encoding), or `"holds a control character"` (NUL,
 * ESC...: any but the white space around the text, which a reader trims).
 *
 * @example
 * ```ts
 * import { Unreadable } from "@connected-vehicle/simulator/SecretFile"
 *
 * new Unreadable({ code: "ENOENT" }).message // "cannot be read: ENOENT"
 * new Unreadable({ code: "EILSEQ", detail: "not UTF-8 text" }).message // "cannot be read: EILSEQ (not UTF-8 text)"
 * ```
 * @since 0.2.0
 * @category reasons
 */
export class Unreadable extends Schema.TaggedError<Unreadable>()("Unreadable", {
  code: Schema.String,
  /** Why the text is refused (`code` `EILSEQ`), never quoting it. */
  detail: Schema.optionalKey(Schema.String),
  cause: Schema.optionalKey(Schema.Unknown)
}) {
  override get message() {
    return `cannot be read: ${this.code}${this.detail === undefined ? "" : ` (${this.detail})`}`
  }
}

/**
 * Why a secret file was refused.
 *
 * @example
 * ```ts
 * import type { Reason } from "@connected-vehicle/simulator/SecretFile"
 *
 * const maybeAbsent = (reason: Reason) => reason._tag === "Unreadable" && reason.code === "ENOENT"
 * ```
 * @since 0.2.0
 * @category models
 */
export type Reason = NotARegularFile | TooLarge | Unreadable

/**
 * Schema of {@link Reason}.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Reason } from "@connected-vehicle/simulator/SecretFile"
 *
 * const isReason = Schema.is(Reason)
 * ```
 * @since 0.2.0
 * @category schemas
 */
export const Reason = Schema.Union([NotARegularFile, TooLarge, Unreadable])

/**
 * The one error of {@link read}: the file's `path` and the `reason`. The
 * message names the path (as a JSON string) and the reason, never the
 * content. Match a reason with `Effect.catchReason`:
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as SecretFile from "@connected-vehicle/simulator/SecretFile"
 *
 * const secretOrNone = SecretFile.read("./secret").pipe(
 *   Effect.catchReason("SecretFileError", "Unreadable", (reason) =>
 *     reason.code === "ENOENT" ? Effect.succeed("") : Effect.die(reason))
 * )
 * ```
 * @since 0.2.0
 * @category errors
 */
export class SecretFileError extends Schema.TaggedError<SecretFileError>()("SecretFileError", {
  path: Schema.String,
  reason: Reason
}) {
  /** The reason itself. */
  override get cause(): Reason {
    return this.reason
  }
  override get message(): string {
    return `the secret file ${JSON.stringify(this.path)} ${
      this.reason._tag === "Unreadable" ? this.reason.message : `is ${this.reason.message}`
    }`
  }
}

/** The system error code (`ENOENT`, `EACCES`...) of a platform error or its causes, else its reason's tag (`NotFound`...). */
const codeOf = (error: PlatformError.PlatformError): string => {
  let current: unknown = error
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const { code, cause } = current as { readonly code?: unknown; readonly cause?: unknown }
    if (typeof code === "string") return code
    current = cause
  }
  return error.reason._tag
}

// at most this many bytes are asked for at once, so that a large `maxBytes`
// allocates no more than a file holds
const CHUNK_BYTES = 64 * 1024

/** The bytes of an open file, up to `limit` of them (fewer at its end). */
const readUpTo = (file: FileSystem.File, limit: number) =>
  Effect.gen(function*() {
    const chunks: Array<Uint8Array> = []
    let total = 0
    while (total < limit) {
      const chunk = yield* file.readAlloc(Math.min(CHUNK_BYTES, limit - total))
      if (Option.isNone(chunk) || chunk.value.length === 0) break
      chunks.push(chunk.value)
      total += chunk.value.length
    }
    return { chunks, total }
  })

/**
 * A secret given as text, from a variable of the environment or a secret
 * file (the text {@link read} answers): `secretText` of
 * `@connected-vehicle/schema/Redaction`, the one rule of the SDK, the
 * simulator and the sample (re-exported, the same function): the text
 * without the white space around it, or why it is no secret, never quoting
 * it: `"not UTF-8 text"` or `"holds a control character"`. The simulator's
 * CLI and `SimulatorConfig.layerConfig` read `CONNECTED_VEHICLE_WEBHOOK_SECRET`
 * and the secret files (`--webhook-secret-file`, `--client-secret-file`) by
 * it. An empty text (white space only) is a success, `""`: whether a secret
 * is needed is the caller's to say.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { secretText } from "@connected-vehicle/simulator/SecretFile"
 *
 * secretText("tok-123 \n") // Result.succeed("tok-123")
 * Result.isFailure(secretText("tok\u001b123")) // true: "holds a control character"
 * ```
 * @since 0.4.0
 * @category reading
 */
export { secretText }

/** The bytes as text: strict UTF-8 (no U+FFFD for a byte that is not), then {@link secretText}'s refusals. */
const textOf = (bytes: Uint8Array): string | { readonly detail: string } => {
  let text: string
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    return { detail: "not UTF-8 text" }
  }
  const checked = secretText(text)
  return Result.isFailure(checked) ? { detail: checked.failure } : text
}

/**
 * The text (UTF-8, as it is: not trimmed) of a secret file of at most
 * `maxBytes` bytes (default {@link DEFAULT_MAX_BYTES}). The path is looked at
 * first (`stat`, which follows a symbolic link): anything but a regular file
 * fails with {@link NotARegularFile} unopened; once open, the file is looked
 * at again, and at most `maxBytes + 1` bytes are read: a larger file fails
 * with {@link TooLarge}. A file that cannot be looked at, opened or read
 * fails with {@link Unreadable}, as does one that is not UTF-8 text or holds a
 * control character other than the white space around the text (code
 * `EILSEQ`, its `detail` saying which). A `maxBytes` that is not a positive integer
 * is a defect (an `InvalidArgument` naming `maxBytes`).
 *
 * @example
 * ```ts
 * import { NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import * as SecretFile from "@connected-vehicle/simulator/SecretFile"
 *
 * const secret = SecretFile.read("./webhook-secret", { maxBytes: 4096 }).pipe(
 *   Effect.map((text) => text.trim()),
 *   Effect.provide(NodeServices.layer)
 * )
 * ```
 * @since 0.2.0
 * @category reading
 */
export const read = (
  path: string,
  options?: { readonly maxBytes?: number | undefined }
): Effect.Effect<string, SecretFileError, FileSystem.FileSystem> => {
  const maxBytes = options?.maxBytes ?? DEFAULT_MAX_BYTES
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    return Effect.die(new InvalidArgument({ field: "maxBytes", message: `maxBytes must be a positive integer, got ${String(maxBytes)}` }))
  }
  const fail = (reason: Reason) => Effect.fail(new SecretFileError({ path, reason }))
  return Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(path)
    if (info.type !== "File") return yield* fail(new NotARegularFile({ kind: info.type }))
    const file = yield* fs.open(path, { flag: "r" })
    // the path may have been replaced between the two looks
    const opened = yield* file.stat
    if (opened.type !== "File") return yield* fail(new NotARegularFile({ kind: opened.type }))
    const { chunks, total } = yield* readUpTo(file, maxBytes + 1)
    if (total > maxBytes) return yield* fail(new TooLarge({ maxBytes }))
    const text = textOf(Buffer.concat(chunks))
    return typeof text === "string" ? text : yield* fail(new Unreadable({ code: "EILSEQ", detail: text.detail }))
  }).pipe(
    Effect.scoped,
    Effect.catchTag("PlatformError", (error) => fail(new Unreadable({ code: codeOf(error), cause: error })))
  )
}
