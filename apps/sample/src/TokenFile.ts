/**
 * A `TokenStore` (from `@connected-vehicle/auth`) kept in a JSON file, so that
 * `login` in one process and `legacy ...` in the next share the user's
 * tokens. The file is created with mode 0600; it holds the tokens themselves,
 * like any credential cache. Entries are keyed by target and client id (see
 * `Target.keysOf`); the keys `persist` rejects (the application token) stay
 * in memory, for the process only.
 *
 * @since 0.1.0
 */
import { Config, Effect, Layer, Option, Redacted, Schema } from "effect"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import * as SampleConfig from "./SampleConfig.ts"

/**
 * The default file, read from `SampleConfig.config`:
 * `$CONNECTED_VEHICLE_TOKEN_FILE`, else
 * `$XDG_CONFIG_HOME/connected-vehicle/sample-tokens.json` (XDG_CONFIG_HOME
 * defaults to `~/.config`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { defaultPath } from "@connected-vehicle/sample/TokenFile"
 *
 * const program = Effect.flatMap(defaultPath, (path) => Effect.log(`tokens in ${path}`))
 * ```
 * @since 0.1.0
 * @category configuration
 */
export const defaultPath: Config.Config<string> = Config.map(SampleConfig.config, (settings) =>
  Option.getOrElse(
    settings.tokenFile,
    () => join(Option.getOrElse(settings.configHome, () => join(homedir(), ".config")), "connected-vehicle", "sample-tokens.json")
  ))

const Stored = Schema.Struct({
  accessToken: Schema.String,
  issuedAt: Schema.optionalKey(Schema.Number),
  expiresAt: Schema.Number,
  refreshToken: Schema.optionalKey(Schema.String),
  refreshExpiresAt: Schema.optionalKey(Schema.Number)
})
type Stored = typeof Stored.Type

const decodeFile = Schema.decodeUnknownOption(Schema.Struct({ tokens: Schema.Record(Schema.String, Stored) }))

const codeOf = (error: unknown): string =>
  typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"
    ? (error as { code: string }).code
    : "failed"

// the file system errors that may pass by themselves (too many open files, a busy
// file): `transient`, retried by the call; any other (a directory, a refused
// permission, a full disk, a corrupt file) will not
const passing = new Set(["EAGAIN", "EBUSY", "EINTR", "EMFILE", "ENFILE", "ETIMEDOUT"])

const fileError = (key: string, what: string, path: string, error: unknown) => {
  const code = codeOf(error)
  return new TokenStore.TokenStoreError({ key, reason: `cannot ${what} ${path} (${code})`, ...(passing.has(code) ? { transient: true } : {}) })
}

/**
 * The tokens of the file: none when it does not exist; a file that cannot be
 * read or is not a token file is an error (never overwritten: it may hold
 * other tokens), not `transient` (a call does not retry it) unless its
 * error code may pass by itself (`EMFILE`, `EBUSY`...). Reasons carry the
 * path and the error code, never content.
 */
const read = (path: string, key: string): Effect.Effect<Record<string, Stored>, TokenStore.TokenStoreError> =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => {
        try {
          return readFileSync(path, "utf8")
        } catch (error) {
          if (codeOf(error) === "ENOENT") return undefined
          throw error
        }
      },
      catch: (error) => fileError(key, "read", path, error)
    })
    if (text === undefined) return {}
    const parsed = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => undefined }).pipe(
      Effect.map(decodeFile),
      Effect.orElseSucceed(Option.none)
    )
    if (Option.isNone(parsed)) {
      return yield* new TokenStore.TokenStoreError({
        key,
        reason: `${path} is not a token file (corrupt or edited); fix or delete it, then run login again`
      })
    }
    return parsed.value.tokens
  })

/**
 * Replaces the file atomically: a temporary file (mode 0600) in the same
 * directory, renamed over it, so that a crash or a full disk never leaves a
 * truncated file.
 */
const write = (path: string, key: string, tokens: Record<string, Stored>) =>
  Effect.try({
    try: () => {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
      const temporary = `${path}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`
      try {
        writeFileSync(temporary, JSON.stringify({ version: 1, tokens }, null, 2) + "\n", { mode: 0o600, flag: "wx" })
        renameSync(temporary, path)
      } catch (error) {
        rmSync(temporary, { force: true })
        throw error
      }
    },
    catch: (error) => fileError(key, "write", path, error)
  })

/**
 * Options of {@link layer}.
 *
 * @example
 * ```ts
 * import type { Options } from "@connected-vehicle/sample/TokenFile"
 *
 * const usersOnly: Options = { persist: (key) => key.startsWith("user@") }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Which keys go to the file (default: every key); the others are kept in memory. */
  readonly persist?: ((key: string) => boolean) | undefined
}

/**
 * The file-backed store.
 *
 * @example
 * ```ts
 * import * as TokenFile from "@connected-vehicle/sample/TokenFile"
 *
 * const StoreLive = TokenFile.layer("/tmp/tokens.json", { persist: (key) => key.startsWith("user@") })
 * ```
 * @since 0.1.0
 * @category layers
 */
export const layer = (path: string, options?: Options): Layer.Layer<TokenStore.TokenStore> =>
  Layer.effect(
    TokenStore.TokenStore,
    Effect.map(TokenStore.makeMemory, (memory) => {
      const persist = options?.persist ?? (() => true)
      const file = make(path)
      return {
        get: (key) => persist(key) ? file.get(key) : memory.get(key),
        set: (key, token) => persist(key) ? file.set(key, token) : memory.set(key, token),
        remove: (key) => persist(key) ? file.remove(key) : memory.remove(key)
      }
    })
  )

const make = (path: string): TokenStore.TokenStore["Service"] => ({
  get: (key) =>
    Effect.map(read(path, key), (tokens) => {
      const stored = tokens[key]
      return stored === undefined ? Option.none() : Option.some({
        accessToken: Redacted.make(stored.accessToken),
        issuedAt: stored.issuedAt,
        expiresAt: stored.expiresAt,
        refreshToken: stored.refreshToken === undefined ? undefined : Redacted.make(stored.refreshToken),
        refreshExpiresAt: stored.refreshExpiresAt
      })
    }),
  set: (key, token) =>
    Effect.flatMap(read(path, key), (tokens) =>
      write(path, key, {
        ...tokens,
        [key]: {
          accessToken: Redacted.value(token.accessToken),
          ...(token.issuedAt === undefined ? {} : { issuedAt: token.issuedAt }),
          expiresAt: token.expiresAt,
          ...(token.refreshToken === undefined ? {} : { refreshToken: Redacted.value(token.refreshToken) }),
          ...(token.refreshExpiresAt === undefined ? {} : { refreshExpiresAt: token.refreshExpiresAt })
        }
      })),
  remove: (key) =>
    Effect.flatMap(read(path, key), (tokens) => {
      if (!(key in tokens)) return Effect.void
      const { [key]: _removed, ...rest } = tokens
      return write(path, key, rest)
    })
})
