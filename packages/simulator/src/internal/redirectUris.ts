/**
 * Whether a registered redirect URI is one the authorization server can
 * match: what the CLI and the layers check of `redirectUris`.
 *
 * @internal
 */
import { redirectUriIssue } from "@connected-vehicle/schema/OAuth"
import { redirectUriAllowed } from "../Env.ts"

/** The `:*` (any port) of a registered redirect URI's authority. */
const ANY_PORT = /^(https?:\/\/(?:\[[^\]]*\]|[^/:?#]*)):\*(?=$|\/)/i

/**
 * Why a registered redirect URI can match no `redirect_uri` (see
 * `redirectUriAllowed`), or undefined when it can: the SDK's rule
 * (`redirectUriIssue`: an absolute URI without white space, control
 * characters or fragment), and for `http`/`https` one with `//` and no user
 * information, port `*` meaning any. It matches itself then (its `:*` as a port).
 *
 * @internal
 */
export const redirectUriRefusal = (entry: string): string | undefined => {
  const uri = entry.replace(ANY_PORT, "$1:1")
  const issue = redirectUriIssue(uri)
  if (issue !== undefined) return issue
  return redirectUriAllowed([entry], uri)
    ? undefined
    : "Expected an http or https URI as scheme://host[:port|:*][/path], without user information"
}

/** Whether a registered redirect URI can match any `redirect_uri` ({@link redirectUriRefusal}). @internal */
export const redirectUriUsable = (entry: string): boolean => redirectUriRefusal(entry) === undefined
