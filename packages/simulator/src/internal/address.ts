/**
 * @internal
 */

/**
 * `host:port` as a URL writes it (an IPv6 host in brackets).
 *
 * @internal
 */
export const hostPort = (host: string, port: number): string => `${host.includes(":") ? `[${host}]` : host}:${port}`
