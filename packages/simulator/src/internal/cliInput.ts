/**
 * What the bin (`connected-vehicle-simulator`) checks before it starts: the
 * flags' values it cannot use (a usage error) and the address it cannot
 * listen on.
 *
 * @internal
 */
import { Option } from "effect"
import { redirectUriRefusal } from "./redirectUris.ts"
import { hostPort, zoneIdOf } from "./address.ts"
import { isoDate } from "./isoDate.ts"
import { headersTimeoutMillis, sunsetIssue } from "./options.ts"

// what a terminal acts on: C0 and C1 controls, DEL (an escape sequence, a line
// break), the bidirectional formatting characters (which reorder a line as
// shown) and the line and paragraph separators
const terminalActive = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const named: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

/** Whether a text holds a character a terminal acts on (see {@link shown}). */
export const hasTerminalActive = (text: string): boolean => text.search(terminalActive) !== -1

/**
 * A value as the bin prints it: every character a terminal acts on written as
 * an escape (`\n`, `\u001b`), so a flag's value cannot set a color, move the
 * cursor or print a fake line.
 */
export const shown = (text: string): string =>
  text.replace(terminalActive, (c) => named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/**
 * A value as a word of a POSIX shell, as the `export` line prints it: as is
 * when it is safe, else single-quoted; one that holds a character a terminal
 * acts on is `"$(printf '...')"`, those characters (and `\`, `%`) as octal
 * escapes of their UTF-8 bytes, so the line shows none of them and sets the
 * value exactly (but for a trailing line break, which a command substitution
 * drops).
 */
export const shellWord = (value: string): string => {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value
  if (!hasTerminalActive(value)) return `'${value.replaceAll("'", "'\\''")}'`
  const octal = (text: string) => [...new TextEncoder().encode(text)].map((byte) => `\\${byte.toString(8).padStart(3, "0")}`).join("")
  const format = value.replace(/[\\%]/g, octal).replace(terminalActive, octal).replaceAll("'", "'\\''")
  return `"$(printf '${format}')"`
}

/**
 * The date of `--v2-sunset`: an ISO 8601 date or date and time whose fields
 * exist (`2027-02-30` is no day, not 2 March), not before the deprecation
 * date; else it throws (a value that does not parse: a usage error, exit 2).
 */
export const sunsetDate = (text: string): Date => {
  const date = isoDate(text)
  if (date === undefined) {
    throw new Error("an ISO 8601 date that exists, e.g. 2027-06-01 or 2027-06-01T00:00:00Z")
  }
  const issue = sunsetIssue(date.getTime())
  if (issue !== undefined) throw new Error(issue)
  return date
}

/** The error, or one of its causes, that carries a field (Node's system errors carry `code`, `syscall`, `address`, `port`). */
export const findCause = (error: unknown, has: (e: Record<string, unknown>) => boolean): Record<string, unknown> | undefined => {
  let current = error
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const record = current as Record<string, unknown>
    if (has(record)) return record
    current = record.cause
  }
  return undefined
}

/**
 * The line of a server that could not start (the layers die with a
 * `ServeError` whose cause is Node's system error: `listen` for a taken or
 * foreign address, `getaddrinfo` for a host that is no address), or
 * `undefined` for another defect.
 */
export const listenFailure = (defect: unknown, host: string, port: number): string | undefined => {
  const system = findCause(defect, (e) => typeof e.syscall === "string" && typeof e.code === "string")
  if (system === undefined) return undefined
  const at = typeof system.address === "string" ? system.address : host
  const on = typeof system.port === "number" ? system.port : port
  return `cannot listen on ${shown(hostPort(at, on))}: ${system.code as string}`
}

/** The flags the checks below read. */
export interface CheckedFlags {
  readonly host: string
  readonly clientId: string
  readonly clientSecret: Option.Option<string>
  readonly clientSecretFile: Option.Option<string>
  readonly redirectUris: ReadonlyArray<string>
  /** `--headers-timeout` when given (else the layers' default: at most `--request-timeout`). */
  readonly headersTimeout: Option.Option<number>
  readonly requestTimeout: number
  readonly retireV2AfterSunset: boolean
  readonly v2Sunset: Option.Option<unknown>
  readonly splitPorts: boolean
  readonly port: Option.Option<number>
  /** The roots' ports, by flag name (`vehicle-port`, ...). */
  readonly rootPorts: Readonly<Record<string, Option.Option<number>>>
}

const uncontrolled =
  "must not hold a control character (C0, C1, DEL), a bidirectional formatting character or a line separator"

/**
 * The first value the simulator cannot use, as its `error:` line (a usage
 * error, exit 2), or `undefined`.
 */
export const usageIssue = (flags: CheckedFlags): string | undefined => {
  if (flags.host === "") return "--host must not be empty (an address to listen on, such as 127.0.0.1, ::1 or 0.0.0.0)"
  const zone = zoneIdOf(flags.host)
  if (zone !== undefined) {
    return `--host ${shown(flags.host)} has an IPv6 zone id (${shown(zone)}), which a URL cannot carry ` +
      "(Node's URL and fetch refuse http://[fe80::1%25eth0]/, so no client could use the simulator's URL): give the address without it, or ::"
  }
  if (flags.clientId === "") return "--client-id must not be empty"
  if (Option.isSome(flags.clientSecret) && Option.isSome(flags.clientSecretFile)) {
    return "--client-secret and --client-secret-file both give the client secret: give one (--client-secret-file keeps it out of ps and the shell history)"
  }
  if (Option.getOrUndefined(flags.clientSecret) === "") return "--client-secret must not be empty"
  if (hasTerminalActive(flags.clientId)) return `--client-id "${shown(flags.clientId)}" ${uncontrolled}`
  const controlled = flags.redirectUris.find(hasTerminalActive)
  if (controlled !== undefined) return `--redirect-uri "${shown(controlled)}" ${uncontrolled}`
  for (const uri of flags.redirectUris) {
    const refusal = redirectUriRefusal(uri)
    if (refusal !== undefined) return `--redirect-uri ${JSON.stringify(uri)} can match no redirect_uri: ${refusal}`
  }
  // the layers' rule (`headersTimeoutMillis`): a head timeout given is at most the request timeout
  const headersTimeout = Option.getOrUndefined(flags.headersTimeout)
  if (headersTimeoutMillis(headersTimeout, flags.requestTimeout) === "exceeds") {
    return `--headers-timeout (${headersTimeout} ms) must not exceed --request-timeout (${flags.requestTimeout} ms)`
  }
  if (flags.retireV2AfterSunset && Option.isNone(flags.v2Sunset)) {
    return "--retire-v2-after-sunset needs --v2-sunset, the removal date (the spec gives none)"
  }
  const rootPort = Object.keys(flags.rootPorts).find((name) => Option.isSome(flags.rootPorts[name]!))
  if (!flags.splitPorts && rootPort !== undefined) return `--${rootPort} needs --split-ports (without it one origin listens on --port)`
  if (flags.splitPorts && Option.isSome(flags.port)) {
    return "--port is the single origin's: with --split-ports the roots listen on --vehicle-port, --management-port, --compat-port, --auth-port and --legacy-port"
  }
  return undefined
}
