/**
 * What the bin (`connected-vehicle-simulator`) checks before it starts: the
 * flags' values it cannot use (a usage error), the webhook secret file, read
 * within its bounds, and the address it cannot listen on.
 *
 * @internal
 */
import { Effect, FileSystem, Option } from "effect"
import { redirectUriUsable } from "./redirectUris.ts"
import { hostPort, zoneIdOf } from "./address.ts"
import { SECRET_LIMIT } from "./deliveryPolicy.ts"

/**
 * The most bytes read of `--webhook-secret-file`: a secret of
 * {@link SECRET_LIMIT} characters (UTF-16 code units: at most 3 bytes each in
 * UTF-8) and 1,024 bytes of whitespace around it (trimmed). A larger file is
 * refused without reading the rest.
 */
export const SECRET_FILE_BYTES = SECRET_LIMIT * 3 + 1_024

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

/** The system error code (`ENOENT`, `EADDRNOTAVAIL`, ...) of an error or its causes, else its message. */
export const codeOf = (error: unknown): string => {
  const code = findCause(error, (e) => typeof e.code === "string")?.code
  return typeof code === "string" ? code : error instanceof Error && error.message !== "" ? error.message : String(error)
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
  return `cannot listen on ${hostPort(at, on)}: ${system.code as string}`
}

const kinds: Readonly<Record<FileSystem.File.Type, string>> = {
  File: "a file",
  Directory: "a directory",
  SymbolicLink: "a symbolic link",
  BlockDevice: "a block device",
  CharacterDevice: "a character device",
  FIFO: "a named pipe",
  Socket: "a socket",
  Unknown: "of an unknown type"
}

/**
 * The webhook secret file's content, trimmed, read within
 * {@link SECRET_FILE_BYTES}; or the `error:` line of one that is not a
 * regular file (a device, a pipe: never opened, so neither read without end
 * nor waited on) or is larger. A file that cannot be read fails with the
 * platform's error.
 */
export const readSecretFile = (path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(path)
    if (info.type !== "File") {
      return { issue: `cannot read --webhook-secret-file ${path}: not a regular file (${kinds[info.type]})` } as const
    }
    const file = yield* fs.open(path, { flag: "r" })
    const chunks: Array<Uint8Array> = []
    let total = 0
    while (total <= SECRET_FILE_BYTES) {
      const chunk = yield* file.readAlloc(SECRET_FILE_BYTES + 1 - total)
      if (Option.isNone(chunk) || chunk.value.length === 0) break
      chunks.push(chunk.value)
      total += chunk.value.length
    }
    if (total > SECRET_FILE_BYTES) {
      return {
        issue: `the webhook secret of --webhook-secret-file ${path} is at most ${SECRET_LIMIT} characters: the file is over ${SECRET_FILE_BYTES} bytes`
      } as const
    }
    return { secret: new TextDecoder().decode(Buffer.concat(chunks)).trim() } as const
  }).pipe(Effect.scoped)


/** The flags the checks below read. */
export interface CheckedFlags {
  readonly host: string
  readonly clientId: string
  readonly clientSecret: string
  readonly redirectUris: ReadonlyArray<string>
  readonly headersTimeout: number
  readonly requestTimeout: number
  readonly retireV2AfterSunset: boolean
  readonly v2Sunset: Option.Option<unknown>
  readonly splitPorts: boolean
  readonly port: Option.Option<number>
  /** The roots' ports, by flag name (`vehicle-port`, ...). */
  readonly rootPorts: Readonly<Record<string, Option.Option<number>>>
}

/**
 * The first value the simulator cannot use, as its `error:` line (a usage
 * error, exit 2), or `undefined`.
 */
export const usageIssue = (flags: CheckedFlags): string | undefined => {
  if (flags.host === "") return "--host must not be empty (an address to listen on, such as 127.0.0.1, ::1 or 0.0.0.0)"
  const zone = zoneIdOf(flags.host)
  if (zone !== undefined) {
    return `--host ${flags.host} has an IPv6 zone id (${zone}), which a URL cannot carry ` +
      "(Node's URL and fetch refuse http://[fe80::1%25eth0]/, so no client could use the simulator's URL): give the address without it, or ::"
  }
  if (flags.clientId === "") return "--client-id must not be empty"
  if (flags.clientSecret === "") return "--client-secret must not be empty"
  const unusable = flags.redirectUris.find((uri) => !redirectUriUsable(uri))
  if (unusable !== undefined) {
    return `--redirect-uri ${JSON.stringify(unusable)} is not an absolute http or https URI ` +
      "(scheme://host[:port|:*][/path], without user information or fragment)"
  }
  if (flags.requestTimeout > 0 && flags.headersTimeout > flags.requestTimeout) {
    return `--headers-timeout (${flags.headersTimeout} ms) must not exceed --request-timeout (${flags.requestTimeout} ms)`
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
