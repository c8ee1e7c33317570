/**
 * What the SDK and the simulator never show of a request: the query
 * parameters and the headers that may carry a credential. The transport
 * takes their values out of the URLs in its errors and log lines, the
 * simulator out of its request log: one rule for both, and for a header name
 * as for a parameter name. And how a secret given as text (a variable of the
 * environment, a secret file) is read: {@link secretText}.
 *
 * @since 0.2.0
 */
import { Result } from "effect"

const credentialName = /token|secret|password|passwd|verifier|signature|credential|assertion|api[-_]?key|^(?:code|key|sig|state|auth|authorization|session)$/i

/**
 * Whether a query (or fragment) parameter of this name may carry a
 * credential: its name holds `token`, `secret`, `password`, `passwd`,
 * `verifier`, `signature`, `credential`, `assertion` or `api_key` (`api-key`,
 * `apikey`), or is `code`, `key`, `sig`, `state`, `auth`, `authorization` or
 * `session`, whatever its case. The name is tested as given: decode it first
 * (`decodeURIComponent`, `+` as a space) when it comes from a URL.
 *
 * @example
 * ```ts
 * import { isCredentialParameter } from "@connected-vehicle/schema/Redaction"
 *
 * isCredentialParameter("access_token") // true
 * isCredentialParameter("pageSize") // false
 * ```
 * @since 0.2.0
 * @category predicates
 */
export const isCredentialParameter = (name: string): boolean => credentialName.test(name)

// what a header name adds to a parameter name's rule: the standard credential
// headers (`authorization`, `authentication`, `cookie`, `dpop`), `auth` or a
// session id as a word of the name (`x-auth`, `x-session-id`, `sessionid`),
// and a name ending in an access, subscription, private, functions or auth key
// (`x-access-key`, `ocp-apim-subscription-key`; not `idempotency-key`)
const credentialHeader = /authorization|authentication|cookie|(?:^|[-_])(?:auth|session|sessionid)(?:$|[-_])|session[-_]?id|(?:access|subscription|private|functions|auth)[-_]?key$|^dpop$/i

/**
 * Whether a header of this name may carry a credential: the rule of
 * {@link isCredentialParameter} (`x-auth-token`, `x-access-token`,
 * `api-key`, `x-api-key`, `x-client-secret`, ...), and also a name that holds
 * `authorization` (`proxy-authorization`), `authentication` or `cookie`
 * (`set-cookie`), holds `auth` or a session id as a word (`x-auth`,
 * `x-session-id`, `sessionid`), ends in an access, subscription, private,
 * functions or auth key (`x-access-key`, `ocp-apim-subscription-key`; not
 * `idempotency-key`), or is `dpop`, whatever its case.
 *
 * @example
 * ```ts
 * import { isCredentialHeader } from "@connected-vehicle/schema/Redaction"
 *
 * isCredentialHeader("x-auth-token") // true
 * isCredentialHeader("proxy-authorization") // true
 * isCredentialHeader("sc-user-id") // false
 * ```
 * @since 0.2.0
 * @category predicates
 */
export const isCredentialHeader = (name: string): boolean => credentialName.test(name) || credentialHeader.test(name)

// a control character (C0, DEL, C1): none is part of a secret, and a NUL or an ESC would reach a header, a log or a terminal
const control = /\p{Cc}/u

/**
 * A secret given as text, from a variable of the environment or a secret
 * file: the text without the white space around it (`trim`: a trailing
 * newline or CR of an env file or a mounted secret, spaces), or why it is no
 * secret, never quoting it: `"not UTF-8 text"` (a lone surrogate, which UTF-8
 * cannot encode) or `"holds a control character"` (NUL, ESC, DEL, a C1
 * control...: any but the white space around the text). The one rule of
 * every secret the SDK, the simulator and the sample read from
 * configuration text (`CONNECTED_VEHICLE_CLIENT_SECRET` of
 * `OAuthConfig.config`, `CONNECTED_VEHICLE_WEBHOOK_SECRET`, the simulator's
 * and the sample's secret files); a secret given in code is taken as it is.
 * An empty text (white space only) is a success, `""`: whether that is a
 * missing secret is the caller's to say.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { secretText } from "@connected-vehicle/schema/Redaction"
 *
 * secretText("tok-123 \r\n") // Result.succeed("tok-123")
 * Result.isFailure(secretText("tok\u001b123")) // true: "holds a control character"
 * ```
 * @since 0.5.0
 * @category parsing
 */
export const secretText = (text: string): Result.Result<string, "not UTF-8 text" | "holds a control character"> => {
  const trimmed = text.trim()
  if (!trimmed.isWellFormed()) return Result.fail("not UTF-8 text")
  return control.test(trimmed) ? Result.fail("holds a control character") : Result.succeed(trimmed)
}
