/**
 * `@connected-vehicle/simulator/SecretFile`: regular files (and symbolic
 * links to one) of at most `maxBytes` bytes are read; anything else is one
 * `SecretFileError` whose reason says why, a device or a named pipe never
 * opened, and no message holds the content.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { execFileSync } from "node:child_process"
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as SecretFile from "../src/SecretFile.ts"

/** A temporary directory for the test's scope. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "secret-file-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/**
 * A named pipe (`mkfifo`) for the test's scope. A read that opened it would
 * wait for a writer without end (an open is not interruptible): after 3 s, a
 * writer opens it and closes it at once, so such a read ends, with an empty
 * text, and the test fails instead of hanging.
 */
const namedPipe = (path: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      execFileSync("mkfifo", [path])
      return setTimeout(() => {
        try {
          closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK))
        } catch {
          // no reader waits on it
        }
      }, 3_000)
    }),
    (timer) => Effect.sync(() => clearTimeout(timer))
  )

/** The reason `read` failed with, within 2 s (the test fails when it succeeds, dies or waits). */
const reasonOf = (path: string, options?: { readonly maxBytes?: number }) =>
  Effect.suspend(() => {
    const start = Date.now()
    return SecretFile.read(path, options).pipe(
      Effect.flip,
      Effect.map((error) => {
        assert.isBelow(Date.now() - start, 2_000, `read(${path}) waited`)
        assert.instanceOf(error, SecretFile.SecretFileError)
        assert.strictEqual(error.path, path)
        return error.reason
      })
    )
  })

describe("SecretFile.read", () => {
  it.effect("a regular file: its text as it is (not trimmed), up to exactly maxBytes", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = join(dir, "secret")
      const text = "  s3cr\u00e9t \u20ac\n"
      writeFileSync(file, text)
      assert.strictEqual(yield* SecretFile.read(file), text)
      const bytes = Buffer.byteLength(text)
      assert.strictEqual(yield* SecretFile.read(file, { maxBytes: bytes }), text)
      const empty = join(dir, "empty")
      writeFileSync(empty, "")
      assert.strictEqual(yield* SecretFile.read(empty), "")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a symbolic link to a regular file is read; one to a named pipe is refused unopened", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = join(dir, "secret")
      writeFileSync(file, "linked")
      symlinkSync(file, join(dir, "link"))
      assert.strictEqual(yield* SecretFile.read(join(dir, "link")), "linked")
      yield* namedPipe(join(dir, "fifo"))
      symlinkSync(join(dir, "fifo"), join(dir, "fifo-link"))
      const reason = yield* reasonOf(join(dir, "fifo-link"))
      assert.deepStrictEqual({ _tag: reason._tag, kind: "kind" in reason ? reason.kind : undefined }, { _tag: "NotARegularFile", kind: "FIFO" })
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a file over maxBytes: TooLarge, and neither message holds the content", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = join(dir, "secret")
      writeFileSync(file, "the-secret-content")
      const reason = yield* reasonOf(file, { maxBytes: 17 })
      assert.instanceOf(reason, SecretFile.TooLarge)
      assert.strictEqual(reason.maxBytes, 17)
      const error = new SecretFile.SecretFileError({ path: file, reason })
      assert.strictEqual(error.message, `the secret file ${JSON.stringify(file)} is larger than 17 bytes`)
      assert.notInclude(error.message, "secret-content")
      assert.notInclude(reason.message, "secret-content")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a 64 MiB file with the default bound: TooLarge at 64 KiB, not read further", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const huge = join(dir, "huge")
      writeFileSync(huge, "")
      truncateSync(huge, 64 * 1024 * 1024)
      const reason = yield* reasonOf(huge)
      assert.instanceOf(reason, SecretFile.TooLarge)
      assert.strictEqual(reason.maxBytes, SecretFile.DEFAULT_MAX_BYTES)
      assert.strictEqual(SecretFile.DEFAULT_MAX_BYTES, 65_536)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a directory, a named pipe (mkfifo) and /dev/zero: NotARegularFile, at once", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const fifo = join(dir, "fifo")
      yield* namedPipe(fifo)
      mkdirSync(join(dir, "sub"))
      const cases = [
        [join(dir, "sub"), "Directory", "not a regular file (a directory)"],
        [fifo, "FIFO", "not a regular file (a named pipe)"],
        ["/dev/zero", "CharacterDevice", "not a regular file (a character device)"]
      ] as const
      for (const [path, kind, message] of cases) {
        const reason = yield* reasonOf(path)
        assert.instanceOf(reason, SecretFile.NotARegularFile)
        assert.strictEqual(reason.kind, kind)
        assert.strictEqual(reason.message, message)
      }
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a missing file: Unreadable with the system code, the platform error as its cause", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const missing = join(dir, "missing")
      const reason = yield* reasonOf(missing)
      assert.instanceOf(reason, SecretFile.Unreadable)
      assert.strictEqual(reason.code, "ENOENT")
      assert.strictEqual((reason.cause as { readonly _tag?: string } | undefined)?._tag, "PlatformError")
      assert.strictEqual(
        new SecretFile.SecretFileError({ path: missing, reason }).message,
        `the secret file ${JSON.stringify(missing)} cannot be read: ENOENT`
      )
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("bytes that are not UTF-8 text, or hold a control character: Unreadable EILSEQ saying why, never quoting them", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const cases = [
        ["binary", Buffer.from([0x9f, 0x92, 0x96, 0xff, 0xfe, 0x41, 0x42, 0x43]), "not UTF-8 text"],
        ["latin1", Buffer.from("s\u00e9cret-token\n", "latin1"), "not UTF-8 text"],
        ["nul", Buffer.from("secret\u0000token\n"), "holds a control character"],
        ["esc", Buffer.from("\u001b[31msecret-token\n"), "holds a control character"],
        ["c1", Buffer.from("secret\u0085token"), "holds a control character"],
        ["trailing-nul", Buffer.from("secret-token\u0000"), "holds a control character"]
      ] as const
      for (const [name, bytes, detail] of cases) {
        const path = join(dir, name)
        writeFileSync(path, bytes)
        const reason = yield* reasonOf(path)
        assert.instanceOf(reason, SecretFile.Unreadable, name)
        assert.strictEqual(reason.code, "EILSEQ", name)
        assert.strictEqual((reason as SecretFile.Unreadable).detail, detail, name)
        const message = new SecretFile.SecretFileError({ path, reason }).message
        assert.strictEqual(message, `the secret file ${JSON.stringify(path)} cannot be read: EILSEQ (${detail})`)
        assert.notInclude(message, "secret-token")
      }
      // white space around the text (a trailing newline, CRLF, tabs) is the reader's to trim: the text as it is
      const spaced = join(dir, "spaced")
      writeFileSync(spaced, "\t caf\u00e9-secret \r\n")
      assert.strictEqual(yield* SecretFile.read(spaced), "\t caf\u00e9-secret \r\n")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("a maxBytes that is not a positive integer is a defect naming maxBytes", () =>
    Effect.gen(function*() {
      for (const maxBytes of [0, -1, 1.5, Number.NaN]) {
        const exit = yield* Effect.exit(SecretFile.read("/dev/null", { maxBytes }))
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause), String(maxBytes))
        const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
        assert.strictEqual((defect as { readonly field?: string }).field, "maxBytes")
      }
    }).pipe(Effect.provide(NodeServices.layer)))
})
