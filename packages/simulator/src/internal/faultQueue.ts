/**
 * The scripted faults of a simulator: the rules of `POST /_simulator/faults`
 * (and `Simulator.injectFaults`), consumed in order by the requests they
 * match, and the runs of the `x-simulator-fault` header under a key.
 *
 * @internal
 */
import type { Fault } from "../State.ts"
import { setCapped } from "./stateRecords.ts"

/** One fault of a rule and how many more requests get it. */
export interface FaultRun {
  readonly fault: Fault
  remaining: number
}

/** The longest `pathPattern` of `POST /_simulator/faults`, in characters. */
export const PATH_GLOB_LIMIT = 256

const STAR = -1
const GLOBSTAR = -2

/**
 * A `pathPattern` of `POST /_simulator/faults`: a glob over the whole path,
 * `*` any characters but `/`, `**` any characters; the other characters
 * literal (the char codes in `tokens`, a star as `STAR` or `GLOBSTAR`).
 */
export interface PathGlob {
  readonly _tag: "PathGlob"
  readonly tokens: ReadonlyArray<number>
}

/**
 * The glob of a `pathPattern`, or why it is refused: longer than
 * {@link PATH_GLOB_LIMIT}, not starting with `/`, or with a character of a
 * regular expression (the syntax it had before) that a path does not carry.
 */
export const pathGlob = (pattern: string): PathGlob | string => {
  if (pattern.length > PATH_GLOB_LIMIT) return `pathPattern is at most ${PATH_GLOB_LIMIT} characters, got ${pattern.length}`
  const special = /[\\^$()[\]{}+?|]|\.\*/.exec(pattern)
  if (!pattern.startsWith("/") || special !== null) {
    return `pathPattern is a glob over the whole path, starting with "/" ("*" any characters but "/", "**" any characters, e.g. "/v3/vehicles/*/signals/**"), not a regular expression: ${
      JSON.stringify(pattern.slice(0, 80))
    }`
  }
  const tokens: Array<number> = []
  const lower = pattern.toLowerCase()
  for (let i = 0; i < lower.length; i++) {
    if (lower[i] !== "*") tokens.push(lower.charCodeAt(i))
    else if (lower[i + 1] !== "*") tokens.push(STAR)
    else {
      tokens.push(GLOBSTAR)
      while (lower[i + 1] === "*") i++
    }
  }
  return { _tag: "PathGlob", tokens }
}

/** Adds the states a star lets through without a character (it may match none). */
const skipStars = (tokens: ReadonlyArray<number>, states: Uint8Array) => {
  for (let i = 0; i < tokens.length; i++) if (states[i] === 1 && tokens[i]! < 0) states[i + 1] = 1
}

/**
 * Whether `glob` matches the whole `path`: the states of the glob a prefix of
 * the path can reach, one character at a time, so in time linear in the
 * path's length (times the glob's), whatever both are: no backtracking.
 */
export const globMatches = (glob: PathGlob, path: string): boolean => {
  const { tokens } = glob
  let states = new Uint8Array(tokens.length + 1)
  let next = new Uint8Array(tokens.length + 1)
  states[0] = 1
  skipStars(tokens, states)
  for (let k = 0; k < path.length; k++) {
    const c = path.charCodeAt(k)
    next.fill(0)
    let alive = false
    for (let i = 0; i < tokens.length; i++) {
      if (states[i] === 0) continue
      const token = tokens[i]!
      if (token === GLOBSTAR || (token === STAR && c !== 47)) next[i] = 1
      else if (token === c) next[i + 1] = 1
      else continue
      alive = true
    }
    if (!alive) return false
    skipStars(tokens, next)
    ;[states, next] = [next, states]
  }
  return states[tokens.length] === 1
}

/** Scripted faults for the requests a path and method match: `runs` in order, from `next`. */
export interface FaultRule {
  readonly path: string | RegExp | PathGlob | undefined
  readonly method: string | undefined
  readonly runs: ReadonlyArray<FaultRun>
  next: number
}

/** Whether a fault rule's path pattern matches a request path. */
export const pathMatches = (pattern: string | RegExp | PathGlob, path: string): boolean => {
  if (pattern instanceof RegExp) {
    pattern.lastIndex = 0
    return pattern.test(path)
  }
  if (typeof pattern !== "string") return globMatches(pattern, path)
  const base = pattern.endsWith("/") ? pattern.slice(0, -1) : pattern
  return path === pattern || path === base || path.startsWith(base + "/")
}

/** @internal */
export class FaultQueue {
  private rules: Array<FaultRule> = []
  private keyed = new Map<string, { readonly spec: string; remaining: number }>()
  private readonly keyLimit: number

  constructor(keyLimit: number) {
    this.keyLimit = keyLimit
  }

  clear(): void {
    this.rules = []
    this.keyed.clear()
  }

  /** The number of fault keys remembered. */
  get keys(): number {
    return this.keyed.size
  }

  /**
   * Faults each given `times` times in a row (kept as one entry, whatever
   * `times`), unless `limit` rules are pending: then `false`, nothing kept.
   */
  inject(
    path: string | RegExp | PathGlob | undefined,
    method: string | undefined,
    runs: ReadonlyArray<{ readonly fault: Fault; readonly times: number }>,
    limit: number
  ): boolean {
    if (runs.length === 0) return true
    if (this.rules.length >= limit) return false
    this.rules.push({ path, method: method?.toUpperCase(), runs: runs.map((run) => ({ fault: run.fault, remaining: run.times })), next: 0 })
    return true
  }

  /**
   * Whether the request carrying fault header `spec` under `key` gets the fault:
   * the first `times` requests with that key (and that header value) do.
   */
  takeKeyed(key: string, spec: string, times: number): boolean {
    let entry = this.keyed.get(key)
    if (entry === undefined || entry.spec !== spec) {
      this.keyed.delete(key)
      entry = { spec, remaining: times }
      setCapped(this.keyed, key, entry, this.keyLimit)
    }
    if (entry.remaining <= 0) return false
    entry.remaining--
    return true
  }

  /** Whether a scripted fault is queued. */
  pending(): boolean {
    return this.rules.length > 0
  }

  /** The next scripted fault for a request, consumed. */
  next(method: string, path: string): Fault | undefined {
    for (let i = 0; i < this.rules.length; i++) {
      const rule = this.rules[i]!
      if (rule.method !== undefined && rule.method !== method.toUpperCase()) continue
      if (rule.path !== undefined && !pathMatches(rule.path, path)) continue
      const run = rule.runs[rule.next]!
      if (--run.remaining <= 0 && ++rule.next === rule.runs.length) this.rules.splice(i, 1)
      return run.fault
    }
    return undefined
  }
}
