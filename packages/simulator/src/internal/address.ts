/**
 * @internal
 */
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"

/**
 * `host:port` as a URL writes it (an IPv6 host in brackets).
 *
 * @internal
 */
export const hostPort = (host: string, port: number): string => `${host.includes(":") ? `[${host}]` : host}:${port}`

/**
 * The IPv6 zone id of `host` (`%eth0` of `fe80::1%eth0`), or `undefined`. A
 * URL cannot carry one: the WHATWG URL parser (Node's `URL` and `fetch`, the
 * SDK's origins) refuses `http://[fe80::1%25eth0]/` as it does the raw `%`,
 * so a simulator listening there would have no URL a client could use.
 *
 * @internal
 */
export const zoneIdOf = (host: string): string | undefined => {
  const at = host.indexOf("%")
  return at === -1 ? undefined : host.slice(at)
}

/**
 * `host`, unless it has a zone id ({@link zoneIdOf}): then throws an
 * `InvalidArgument` naming `host`.
 *
 * @internal
 */
export const checkedHost = (host: string | undefined): string | undefined => {
  const zone = host === undefined ? undefined : zoneIdOf(host)
  if (zone === undefined) return host
  throw new InvalidArgument({
    field: "host",
    message: `host: Expected an address without an IPv6 zone id (${zone}): a URL cannot carry one; got ${JSON.stringify(host)}`
  })
}
