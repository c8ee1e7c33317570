/**
 * The keys the layer constructors take: the options of `SimulatorOptions`
 * and each constructor's own (`port`, `host`, `ports`). A JavaScript caller's
 * unknown or misspelt key is refused, as the CLI refuses an unknown flag.
 *
 * @internal
 */
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { SimulatorOptions } from "../SimulatorOptions.ts"

/** Every key of `SimulatorOptions` (a record over its keys: the type checker keeps the two in step). */
const OPTIONS: { readonly [K in keyof SimulatorOptions]-?: true } = {
  seed: true,
  vehicles: true,
  users: true,
  webhooks: true,
  connections: true,
  clientId: true,
  clientSecret: true,
  redirectUris: true,
  enforcePermissions: true,
  failureRate: true,
  latency: true,
  legacySunset: true,
  retireLegacy: true,
  webhookSecret: true,
  headersTimeout: true,
  requestTimeout: true,
  rateLimit: true,
  accessTokenLifetime: true,
  grantLimits: true,
  controlLimits: true
}

/** A constructor's own keys besides `SimulatorOptions`. */
export type OwnKey = "port" | "host" | "ports"

/** The options renamed to `Duration` inputs: a JavaScript caller that still gives one is told its new name. */
const RENAMED: Readonly<Record<string, string>> = {
  latencyMillis: "latency",
  headersTimeoutMillis: "headersTimeout",
  requestTimeoutMillis: "requestTimeout"
}

/**
 * The error of a field renamed to a `Duration` input (`old` to `name`, both
 * after `prefix`, as in `faults[0].`): its new name said.
 */
export const renamedField = (old: string, name: string, prefix = ""): InvalidArgument =>
  new InvalidArgument({
    field: `${prefix}${old}`,
    message: `${prefix}${old} was renamed ${prefix}${name} (a Duration input; a number is milliseconds)`
  })

/** The edit distance of two keys, at most `limit + 1` (insertions, deletions, substitutions). */
const distance = (a: string, b: string, limit: number): number => {
  if (Math.abs(a.length - b.length) > limit) return limit + 1
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return Math.min(previous[b.length]!, limit + 1)
}

/** The known key `key` was most likely meant as: the same but for case, or at most 2 edits away. */
const nearest = (key: string, known: ReadonlyArray<string>): string | undefined =>
  known.find((k) => k.toLowerCase() === key.toLowerCase()) ??
    known.map((k) => [k, distance(key.toLowerCase(), k.toLowerCase(), 2)] as const)
      .filter(([, d]) => d <= 2)
      .sort((x, y) => x[1] - y[1])[0]?.[0]

/** A key as a message shows it: as it is when plain, else as a JSON string (cut after 40 characters). */
const shownKey = (key: string): string => /^[A-Za-z0-9_$]{1,40}$/.test(key) ? key : JSON.stringify(key.slice(0, 40))

/**
 * Refuses a key of `options` that `constructor` does not take (one of
 * `SimulatorOptions` or of `own`): an `InvalidArgument` naming it, its new
 * name for a renamed `*Millis` option, else the known key it was likely meant
 * as.
 */
export const knownKeys = (options: unknown, constructor: string, own: ReadonlyArray<OwnKey>): void => {
  if (typeof options !== "object" || options === null) return
  for (const key of Object.keys(options)) {
    if (Object.hasOwn(OPTIONS, key) || (own as ReadonlyArray<string>).includes(key)) continue
    const renamed = Object.hasOwn(RENAMED, key) ? RENAMED[key] : undefined
    if (renamed !== undefined) throw renamedField(key, renamed)
    const meant = nearest(key, [...Object.keys(OPTIONS), ...own])
    throw new InvalidArgument({
      field: key,
      message: `${shownKey(key)}: not an option of ${constructor}` + (meant === undefined ? "" : `; did you mean ${meant}?`)
    })
  }
}
