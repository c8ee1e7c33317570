/**
 * The secrets a request carries, and server text with them taken out: a
 * server that echoes a credential in an error (`detail`, an OAuth
 * `error_description`) must not put it into the SDK's errors or logs.
 *
 * @internal
 */
import type { HttpClientRequest } from "effect/http"

const secretField = /secret|token|password|passwd|verifier|assertion|^code$/i

const decoder = new TextDecoder()

/** The Basic credential's parts, or `undefined`. */
const basicParts = (encoded: string): ReadonlyArray<string> => {
  try {
    const decoded = Buffer.from(encoded, "base64").toString("utf8")
    const colon = decoded.indexOf(":")
    return colon === -1 ? [decoded] : [decoded.slice(colon + 1), decoded]
  } catch {
    return []
  }
}

/** The form fields of a urlencoded body that hold secrets. */
const formSecrets = (request: HttpClientRequest.HttpClientRequest): ReadonlyArray<string> => {
  const body = request.body
  if (body._tag !== "Uint8Array" && body._tag !== "Raw") return []
  if (!(body.contentType ?? "").includes("application/x-www-form-urlencoded")) return []
  const text = body._tag === "Uint8Array" ? decoder.decode(body.body) : typeof body.body === "string" ? body.body : undefined
  if (text === undefined) return []
  const out: Array<string> = []
  for (const [key, value] of new URLSearchParams(text)) if (secretField.test(key)) out.push(value)
  return out
}

/**
 * The credentials in a request as sent: the bearer token, the Basic
 * credential (and its secret part), and secret form fields of its body.
 *
 * @internal
 */
export const secretsOf = (request: HttpClientRequest.HttpClientRequest): ReadonlyArray<string> => {
  const out: Array<string> = []
  const authorization = request.headers["authorization"]
  if (authorization !== undefined) {
    const space = authorization.indexOf(" ")
    const scheme = space === -1 ? "" : authorization.slice(0, space).toLowerCase()
    const value = space === -1 ? authorization : authorization.slice(space + 1).trim()
    out.push(value)
    if (scheme === "basic") out.push(...basicParts(value))
  }
  if (request.body._tag !== "Empty") out.push(...formSecrets(request))
  // too short to be a credential, and replacing it would garble the text
  return out.filter((secret) => secret.length >= 6)
}

/**
 * `text` with every occurrence of each secret replaced by `<redacted>`
 * (longest first, so that a part never leaves the rest of a longer one).
 *
 * @internal
 */
export const scrub = (text: string, secrets: ReadonlyArray<string>): string => {
  if (secrets.length === 0) return text
  let out = text
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (out.includes(secret)) out = out.split(secret).join("<redacted>")
  }
  return out
}
