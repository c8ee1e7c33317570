/**
 * Reading a secret from a file (`--secret-file`, `--client-secret-file`):
 * regular files only, a bounded number of bytes.
 *
 * @internal
 */
import { Effect, FileSystem, Option } from "effect"
import type { PlatformError } from "effect"
import { SampleError } from "../SampleError.ts"

/**
 * The most bytes read of a secret file: far more than any secret (a client
 * secret or a management token is tens of characters), so that a file this
 * large is not one, and is refused without reading the rest.
 */
export const SECRET_FILE_BYTES = 64 * 1024

const kinds: Readonly<Record<FileSystem.File.Type, string>> = {
  File: "a file",
  Directory: "a directory",
  SymbolicLink: "a symbolic link",
  BlockDevice: "a block device",
  CharacterDevice: "a character device",
  FIFO: "a named pipe",
  Socket: "a socket",
  Unknown: "of an unknown type"
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

/**
 * The text of a secret file, read within {@link SECRET_FILE_BYTES}: the file
 * is looked at first, and one that is not a regular file (a device such as
 * `/dev/zero`, a named pipe, a directory) is never opened, so it is neither
 * read without end nor waited on. Every failure is a usage error (exit 2)
 * naming the flag's description and the file, never its content:
 * `Cannot read the webhook secret file /dev/zero: not a regular file (a
 * character device)`.
 */
export const readSecretFile = (path: string, what: string): Effect.Effect<string, SampleError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fail = (why: string) => Effect.fail(new SampleError({ reason: `Cannot read ${what} ${path}: ${why}`, usage: true }))
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(path)
    if (info.type !== "File") return yield* fail(`not a regular file (${kinds[info.type]})`)
    const file = yield* fs.open(path, { flag: "r" })
    const chunks: Array<Uint8Array> = []
    let total = 0
    while (total <= SECRET_FILE_BYTES) {
      const chunk = yield* file.readAlloc(SECRET_FILE_BYTES + 1 - total)
      if (Option.isNone(chunk) || chunk.value.length === 0) break
      chunks.push(chunk.value)
      total += chunk.value.length
    }
    if (total > SECRET_FILE_BYTES) return yield* fail(`larger than ${SECRET_FILE_BYTES} bytes, which no secret is`)
    return new TextDecoder().decode(Buffer.concat(chunks))
  }).pipe(
    Effect.scoped,
    Effect.catchTag("PlatformError", (error) =>
      Effect.fail(new SampleError({ reason: `Cannot read ${what} ${path}: ${codeOf(error)}`, usage: true })))
  )
