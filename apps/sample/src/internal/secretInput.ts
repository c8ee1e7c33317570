/**
 * A secret from a file (`--secret-file`, `--client-secret-file`), read with
 * `@connected-vehicle/simulator/SecretFile` (regular files only, at most its
 * default 64 KiB), its refusal as the CLI's usage error.
 *
 * @internal
 */
import * as SecretFile from "@connected-vehicle/simulator/SecretFile"
import { Effect } from "effect"
import type { FileSystem } from "effect"
import { SampleError } from "../SampleError.ts"

const why = (reason: SecretFile.Reason): string => {
  switch (reason._tag) {
    case "NotARegularFile":
      return reason.message
    case "TooLarge":
      return `larger than ${reason.maxBytes} bytes, which no secret is`
    case "Unreadable":
      // EILSEQ: "not UTF-8 text", "holds a control character"
      return reason.detail ?? reason.code
  }
}

/**
 * The text of a secret file (not trimmed). Every failure is a usage error
 * (exit 2) naming the flag's description and the file, never its content:
 * `Cannot read the webhook secret file /dev/zero: not a regular file (a
 * character device)`; a file that is not UTF-8 text, or holds a control
 * character (NUL, ESC...) other than the white space around the text, is one
 * too (`...: not UTF-8 text`).
 */
export const readSecretFile = (path: string, what: string): Effect.Effect<string, SampleError, FileSystem.FileSystem> =>
  SecretFile.read(path).pipe(
    Effect.catchTag("SecretFileError", (error) =>
      Effect.fail(new SampleError({ reason: `Cannot read ${what} ${path}: ${why(error.reason)}`, usage: true })))
  )
