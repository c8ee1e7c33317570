/**
 * Whether a registered redirect URI is one the authorization server can
 * match: what the CLI and the layers check of `redirectUris`.
 *
 * @internal
 */
import { redirectUriAllowed } from "../Env.ts"

/** The `:*` (any port) of a registered redirect URI's authority. */
const ANY_PORT = /^(https?:\/\/(?:\[[^\]]*\]|[^/:?#]*)):\*(?=$|\/)/i

/**
 * Whether a registered redirect URI can match any `redirect_uri` (see
 * `redirectUriAllowed`): an absolute `http` or `https` URI, without user
 * information or fragment, port `*` meaning any. It matches itself then (its
 * `:*` as a port).
 *
 * @internal
 */
export const redirectUriUsable = (entry: string): boolean => redirectUriAllowed([entry], entry.replace(ANY_PORT, "$1:1"))
