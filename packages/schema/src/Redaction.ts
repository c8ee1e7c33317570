/**
 * What the SDK and the simulator never show of a request: the query
 * parameters that may carry a credential. The transport takes their values
 * out of the URLs in its errors and log lines, the simulator out of its
 * request log: one rule for both.
 *
 * @since 0.2.0
 */

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
