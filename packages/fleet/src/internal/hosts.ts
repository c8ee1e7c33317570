/**
 * The one check of a runner's host (`FLEET_RUNNER_HOST`): what
 * `effect/cluster`'s socket runner can listen on and the other runners
 * connect to (Node's `net`, which takes an IPv6 address without brackets).
 *
 * @internal
 */
import { isIPv4, isIPv6 } from "node:net"

/** The longest DNS name (RFC 1035), its labels of 63 characters at most. */
const MAX_NAME = 253

/**
 * A label of a host name (RFC 1123): letters, digits and hyphens, neither
 * first nor last a hyphen, 1-63 characters; an underscore too (not a host
 * name's character, but names such as Docker Compose's `fleet_runner_1`
 * resolve).
 */
const label = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/

/** All digits: a last label so is never a name (RFC 3696), but a number Node would read as an address. */
const digits = /^[0-9]+$/

/**
 * What the runners use of `text` (trimmed): a DNS name or an IPv4 address as
 * it is, an IPv6 address without its brackets; `undefined` when it is none
 * of them (a URL, a port, a path, a user, a name too long, a character
 * outside letters, digits, hyphens and dots).
 *
 * @internal
 */
export const runnerHost = (text: string): string | undefined => {
  if (text.startsWith("[") && text.endsWith("]")) {
    // bracketed as in a URL, where a zone's `%` is written `%25` (`[fe80::1%25eth0]`)
    const address = text.slice(1, -1).replace(/%25(?=[^%]+$)/, "%")
    return isIPv6(address) ? address : undefined
  }
  if (isIPv4(text) || isIPv6(text)) return text
  // a fully qualified name may end with its root's dot (`my-svc.ns.svc.cluster.local.`): kept as given
  const name = text.endsWith(".") ? text.slice(0, -1) : text
  if (name.length > MAX_NAME) return undefined
  const labels = name.split(".")
  return labels.every((part) => label.test(part)) && !digits.test(labels[labels.length - 1]!) ? text : undefined
}

/** @internal */
export const hostRule = "a host name (letters, digits, hyphens and underscores, in labels of at most 63 characters " +
  "separated by dots, 253 in all, a final dot allowed), an IPv4 or an IPv6 address"
