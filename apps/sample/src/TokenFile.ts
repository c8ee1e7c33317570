/**
 * A `TokenStore` (from `@connected-vehicle/auth`) kept in a JSON file, so that
 * `login` in one process and `legacy ...` in the next share the user's
 * tokens. The file is created with mode 0600; it holds the tokens themselves,
 * like any credential cache.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Option, Redacted } from "effect"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join } from "node:path"

/**
 * The default file: `$CONNECTED_VEHICLE_TOKEN_FILE`, else
 * `$XDG_CONFIG_HOME/connected-vehicle/sample-tokens.json` (XDG_CONFIG_HOME
 * defaults to `~/.config`).
 *
 * @example
 * ```ts
 * import { defaultPath } from "@connected-vehicle/sample/TokenFile"
 *
 * console.log(defaultPath())
 * ```
 * @since 0.1.0
 */
export const defaultPath = (): string =>
  process.env["CONNECTED_VEHICLE_TOKEN_FILE"] ??
    join(process.env["XDG_CONFIG_HOME"] ?? join(homedir(), ".config"), "connected-vehicle", "sample-tokens.json")

interface Stored {
  readonly accessToken: string
  readonly issuedAt?: number | undefined
  readonly expiresAt: number
  readonly refreshToken?: string | undefined
  readonly refreshExpiresAt?: number | undefined
}

const read = (path: string): Record<string, Stored> => {
  if (!existsSync(path)) return {}
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as { readonly tokens?: Record<string, Stored> }
    return parsed.tokens ?? {}
  } catch {
    return {}
  }
}

const write = (path: string, tokens: Record<string, Stored>) => {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  writeFileSync(path, JSON.stringify({ version: 1, tokens }, null, 2) + "\n", { mode: 0o600 })
  chmodSync(path, 0o600)
}

/**
 * The file-backed store.
 *
 * @example
 * ```ts
 * import * as TokenFile from "@connected-vehicle/sample/TokenFile"
 *
 * const StoreLive = TokenFile.layer("/tmp/tokens.json")
 * ```
 * @since 0.1.0
 */
export const layer = (path: string): Layer.Layer<TokenStore.TokenStore> =>
  Layer.succeed(TokenStore.TokenStore, {
    get: (key) =>
      Effect.sync(() => {
        const stored = read(path)[key]
        return stored === undefined ? Option.none() : Option.some({
          accessToken: Redacted.make(stored.accessToken),
          issuedAt: stored.issuedAt,
          expiresAt: stored.expiresAt,
          refreshToken: stored.refreshToken === undefined ? undefined : Redacted.make(stored.refreshToken),
          refreshExpiresAt: stored.refreshExpiresAt
        })
      }),
    set: (key, token) =>
      Effect.sync(() =>
        write(path, {
          ...read(path),
          [key]: {
            accessToken: Redacted.value(token.accessToken),
            ...(token.issuedAt === undefined ? {} : { issuedAt: token.issuedAt }),
            expiresAt: token.expiresAt,
            ...(token.refreshToken === undefined ? {} : { refreshToken: Redacted.value(token.refreshToken) }),
            ...(token.refreshExpiresAt === undefined ? {} : { refreshExpiresAt: token.refreshExpiresAt })
          }
        })
      ),
    remove: (key) =>
      Effect.sync(() => {
        const { [key]: _removed, ...rest } = read(path)
        write(path, rest)
      })
  })
