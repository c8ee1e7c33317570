/**
 * The scripted faults of a simulator: the rules of `POST /_simulator/faults`
 * (and `Simulator.injectFaults`), consumed in order by the requests they
 * match, and the runs of the `x-simulator-fault` header under a key.
 *
 * @internal
 */
import type { Fault } from "../State.ts"
import { globMatches, type PathGlob } from "./pathGlob.ts"
import { setCapped } from "./stateRecords.ts"

export type { PathGlob } from "./pathGlob.ts"

/** One fault of a rule and how many more requests get it. */
export interface FaultRun {
  readonly fault: Fault
  remaining: number
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

const matchesOnce = (globs: Map<string, boolean>, pattern: string | RegExp | PathGlob, path: string): boolean => {
  if (typeof pattern === "string" || pattern instanceof RegExp) return pathMatches(pattern, path)
  let matched = globs.get(pattern.source)
  if (matched === undefined) globs.set(pattern.source, matched = globMatches(pattern, path))
  return matched
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
    // a path is compared with the request's routed path, which is lower-case
    const routed = typeof path === "string" ? path.toLowerCase() : path
    this.rules.push({ path: routed, method: method?.toUpperCase(), runs: runs.map((run) => ({ fault: run.fault, remaining: run.times })), next: 0 })
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

  /**
   * The next scripted fault for a request, consumed. The rules with the same
   * glob (up to 10,000 over HTTP) are matched against the path once.
   */
  next(method: string, path: string): Fault | undefined {
    const upper = method.toUpperCase()
    const globs = new Map<string, boolean>()
    for (let i = 0; i < this.rules.length; i++) {
      const rule = this.rules[i]!
      if (rule.method !== undefined && rule.method !== upper) continue
      if (rule.path !== undefined && !matchesOnce(globs, rule.path, path)) continue
      const run = rule.runs[rule.next]!
      if (--run.remaining <= 0 && ++rule.next === rule.runs.length) this.rules.splice(i, 1)
      return run.fault
    }
    return undefined
  }
}
