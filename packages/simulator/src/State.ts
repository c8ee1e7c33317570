/**
 * The mutable part of a simulator: issued codes and tokens, scripted faults,
 * the request log. Everything is reset to the seed by {@link State.reset}.
 *
 * @since 0.1.0
 */
import { Duration } from "effect"
import type { Mode } from "@connected-vehicle/schema/Common"
import { TokenLifetimes } from "@connected-vehicle/schema/OAuth"
import type { Permission } from "@connected-vehicle/schema/OAuth"
import { randomBytes } from "node:crypto"
import { prng } from "./Data.ts"
import * as records from "./internal/stateRecords.ts"
import { type CodeRecord, type RefreshRecord, setCapped, trimOldest, type UsedCode, type UserGrant } from "./internal/stateRecords.ts"
import { type LoggedHeaders, RequestLog } from "./internal/requestLog.ts"
import { FaultQueue, type PathGlob } from "./internal/faultQueue.ts"

/**
 * An injected fault (see the README for the control header that spells them).
 * A `Delay`'s `delay` is a non-negative, finite `Duration` input (a number is
 * milliseconds); `Simulator.injectFaults` dies with an `InvalidArgument` otherwise.
 *
 * @example
 * ```ts
 * import type { Fault } from "@connected-vehicle/simulator/State"
 *
 * const faults: ReadonlyArray<Fault> = [{ _tag: "Status", status: 503, retryAfter: "2" }, { _tag: "Delay", delay: "1 second" }]
 * ```
 * @since 0.1.0
 * @category models
 */
export type Fault =
  | { readonly _tag: "Status"; readonly status: number; readonly retryAfter?: string }
  | { readonly _tag: "Delay"; readonly delay: Duration.Input }
  | { readonly _tag: "StallBody" }
  | { readonly _tag: "Drop" }
  | { readonly _tag: "MalformedJson" }

/**
 * One logged request. The values of the query parameters (separated by `&`
 * or `;`) and of the headers that may carry a credential are `<redacted>`
 * (the names are kept: `access_token=<redacted>`): those whose name holds
 * `secret`, `token`, `password`, `passwd`, `verifier`, `signature`,
 * `credential`, `assertion` or `api_key` (`api-key`, `apikey`), or is `code`,
 * `key`, `sig`, `state`, `auth`, `authorization` or `session`, whatever its
 * case (`isCredentialParameter` of `@connected-vehicle/schema/Redaction`);
 * of a header also a name that holds `authorization` or `cookie`, or `auth`
 * or `session` as a word (`isCredentialHeader`: `authorization`,
 * `proxy-authorization`, `cookie`, `set-cookie`, `x-api-key`, `api-key`,
 * `x-auth-token`, `x-client-secret`, ...);
 * `status` is 0 while the request is in flight and for a dropped connection.
 * An entry is bounded: the URL is cut after 1,024 characters, the headers
 * kept are the first 16 and their names and values 1,024 characters in all
 * (the value that goes over is cut; a redacted value counts as its
 * `<redacted>`); a cut ends in `...[<n> more characters]`, and such an entry
 * has `truncated: true`.
 *
 * @example
 * ```ts
 * import type { RequestLogEntry } from "@connected-vehicle/simulator/State"
 *
 * const failed = (log: ReadonlyArray<RequestLogEntry>) => log.filter((entry) => entry.status >= 500)
 * ```
 * @since 0.1.0
 * @category models
 */
export interface RequestLogEntry {
  readonly method: string
  readonly path: string
  readonly query: string
  readonly headers: Readonly<Record<string, string>>
  readonly status: number
  /** The `x-request-id` the response carried (echoed or generated). */
  readonly requestId: string
  /** Present when the URL or the headers were cut to the log's bounds (see the README). */
  readonly truncated?: true
}

/**
 * Who a bearer token speaks for.
 *
 * @example
 * ```ts
 * import type { Grant } from "@connected-vehicle/simulator/State"
 *
 * const userOf = (grant: Grant) => grant._tag === "User" ? grant.userIndex : undefined
 * ```
 * @since 0.1.0
 * @category models
 */
export type Grant =
  | { readonly _tag: "App"; readonly expiresAt: number }
  | {
    readonly _tag: "User"
    readonly userIndex: number
    readonly scopes: ReadonlySet<Permission>
    readonly mode: Mode
    readonly expiresAt: number
  }

/**
 * The request log keeps the last 10,000 requests.
 *
 * @example
 * ```ts
 * import { LOG_LIMIT } from "@connected-vehicle/simulator/State"
 *
 * const logFull = (entries: number) => entries >= LOG_LIMIT
 * ```
 * @since 0.1.0
 * @category constants
 */
export const LOG_LIMIT = 10_000

/**
 * At most this many fault keys (`x-simulator-fault-key`) are remembered; the
 * oldest are forgotten first, a sixteenth of the limit at a time.
 *
 * @example
 * ```ts
 * import { FAULT_KEY_LIMIT } from "@connected-vehicle/simulator/State"
 *
 * const keysRemembered = (runs: number) => Math.min(runs, FAULT_KEY_LIMIT) // at most; the oldest go first
 * ```
 * @since 0.1.0
 * @category constants
 */
export const FAULT_KEY_LIMIT = 1_000

/**
 * At most this many fault rules from `POST /_simulator/faults` are pending (one
 * more is a `409`; `times=N` is one entry; `Simulator.injectFaults` has none).
 *
 * @example
 * ```ts
 * import { FAULT_RULE_LIMIT } from "@connected-vehicle/simulator/State"
 *
 * const room = (pending: number) => FAULT_RULE_LIMIT - pending
 * ```
 * @since 0.2.0
 * @category constants
 */
export const FAULT_RULE_LIMIT = 10_000

/**
 * At most this many expired access tokens are remembered (so that they keep
 * answering "expired" rather than "invalid"); the oldest are forgotten first,
 * a sixteenth of the limit at a time.
 *
 * @example
 * ```ts
 * import { TOMBSTONE_LIMIT } from "@connected-vehicle/simulator/State"
 *
 * const stillAnswerExpired = (expiredTokens: number) => Math.min(expiredTokens, TOMBSTONE_LIMIT)
 * ```
 * @since 0.1.0
 * @category constants
 */
export const TOMBSTONE_LIMIT = 10_000

/**
 * At most this many exchanged authorization codes are remembered (each for
 * the refresh-token lifetime), so that a replayed one revokes the tokens
 * issued for it (RFC 6749 section 4.1.2); the oldest are forgotten first, a
 * sixteenth of the limit at a time.
 *
 * @example
 * ```ts
 * import { USED_CODE_LIMIT } from "@connected-vehicle/simulator/State"
 *
 * const rememberedCodes = (exchanged: number) => Math.min(exchanged, USED_CODE_LIMIT)
 * ```
 * @since 0.1.0
 * @category constants
 */
export const USED_CODE_LIMIT = 10_000

/**
 * At most this many live (issued, not yet exchanged) authorization codes are
 * kept, so a flood of `GET /oauth/authorize` cannot grow memory without bound;
 * the oldest are forgotten first, a sixteenth of the limit at a time
 * (exchanging one is then `invalid_grant`).
 *
 * @example
 * ```ts
 * import { CODE_LIMIT } from "@connected-vehicle/simulator/State"
 *
 * const liveCodes = (issued: number) => Math.min(issued, CODE_LIMIT)
 * ```
 * @since 0.2.0
 * @category constants
 */
export const CODE_LIMIT = 10_000

/**
 * At most this many live access tokens, and as many refresh tokens, are kept;
 * the oldest are forgotten first, a sixteenth of the limit at a time (one is
 * then answered as an invalid token).
 *
 * @example
 * ```ts
 * import { TOKEN_LIMIT } from "@connected-vehicle/simulator/State"
 *
 * const liveAccessTokens = (issued: number) => Math.min(issued, TOKEN_LIMIT)
 * ```
 * @since 0.2.0
 * @category constants
 */
export const TOKEN_LIMIT = 100_000

/** Expired codes and tokens are swept at most once a minute (simulated time). */
const SWEEP_INTERVAL_MILLIS = 60_000

/**
 * Authorization codes live 10 minutes (RFC 6749 recommends at most 10).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { CODE_LIFETIME } from "@connected-vehicle/simulator/State"
 *
 * Duration.toMinutes(CODE_LIFETIME) // 10
 * ```
 * @since 0.2.0
 * @category constants
 */
export const CODE_LIFETIME: Duration.Duration = Duration.minutes(10)

const codeLifetimeMillis = Duration.toMillis(CODE_LIFETIME)

const token = (prefix: string) => `${prefix}_${randomBytes(24).toString("base64url")}`

/**
 * The request id generated for request number `n` of a simulator seeded with `seed`: `req-<seed>-<n>`.
 *
 * @internal
 * @example
 * ```ts
 * import { generatedRequestId } from "@connected-vehicle/simulator/State"
 *
 * generatedRequestId(42, 7) // "req-42-7"
 * ```
 * @since 0.1.0
 * @category utils
 */
export const generatedRequestId: (seed: number, n: number) => string = records.generatedRequestId

/**
 * Mutable simulator state. `now` reads the simulator's `Clock`.
 *
 * @example
 * ```ts
 * import { State } from "@connected-vehicle/simulator/State"
 *
 * const state = new State({ now: () => Date.now(), seed: 42, failureRate: 0 })
 * state.inject({ path: "/v3/vehicles", faults: [{ _tag: "Status", status: 500 }] })
 * const log = state.requests()
 * ```
 * @since 0.1.0
 * @category models
 */
export class State {
  readonly now: () => number
  readonly seed: number
  readonly failureRate: number
  /** Lifetime of an access token, in seconds (`expires_in`; the spec's 7200 unless configured). */
  readonly accessSeconds: number
  private codes = new Map<string, CodeRecord>()
  private access = new Map<string, Grant | UserGrant>()
  private refresh = new Map<string, RefreshRecord>()
  private usedCodes = new Map<string, UsedCode>()
  private families = 0
  private readonly faults = new FaultQueue(FAULT_KEY_LIMIT)
  private expired = new Set<string>()
  private lastSweep = -Infinity
  private requestCounter = 0
  private readonly log: RequestLog
  private random: () => number
  private resetHooks: Array<() => void> = []
  private readonly codeLimit: number
  private readonly tokenLimit: number

  constructor(options: {
    readonly now: () => number
    readonly seed: number
    readonly failureRate: number
    readonly accessSeconds?: number | undefined
    /** Live unexchanged codes kept (default {@link CODE_LIMIT}). */
    readonly codeLimit?: number | undefined
    /** Live access tokens kept, and as many refresh tokens (default {@link TOKEN_LIMIT}). */
    readonly tokenLimit?: number | undefined
  }) {
    this.now = options.now
    this.codeLimit = options.codeLimit ?? CODE_LIMIT
    this.tokenLimit = options.tokenLimit ?? TOKEN_LIMIT
    this.seed = options.seed
    this.failureRate = options.failureRate
    this.accessSeconds = options.accessSeconds ?? TokenLifetimes.accessSeconds
    this.random = prng(options.seed ^ 0x5a5a5a5a)
    this.log = new RequestLog(LOG_LIMIT, options.seed)
  }

  reset(): void {
    this.codes.clear()
    this.access.clear()
    this.refresh.clear()
    this.usedCodes.clear()
    this.faults.clear()
    this.expired.clear()
    this.requestCounter = 0
    this.resetLog()
    this.random = prng(this.seed ^ 0x5a5a5a5a)
    for (const hook of this.resetHooks) hook()
  }

  /** Runs `hook` on every {@link State.reset} (the delivery engine forgets what was created). */
  onReset(hook: () => void): void {
    this.resetHooks.push(hook)
  }

  // -- request log ----------------------------------------------------------

  /**
   * Logs a request (status 0 until the response sets it). The slot keeps the
   * request's own URL and headers, or a copy cut to the log's bounds (see the
   * README): the path, query and redacted headers are made when the log is
   * read, not on every request.
   */
  record(method: string, url: string, headers: LoggedHeaders, requestId: string): { status: number } {
    return this.log.record(method, url, headers, requestId)
  }

  /**
   * Logs a request already answered with `status` (the loopback fast path);
   * `requestId` is the request's own, or the number of a generated one
   * ({@link State.nextRequestNumber}).
   */
  recordAnswered(method: string, url: string, headers: LoggedHeaders, requestId: string | number, status: number): void {
    this.log.recordAnswered(method, url, headers, requestId, status)
  }

  /** A request id: `req-<seed>-<n>`, n counting from 1 since the last reset. */
  nextRequestId(): string {
    return generatedRequestId(this.seed, this.nextRequestNumber())
  }

  /** The number of the next generated request id (see {@link State.nextRequestId}). */
  nextRequestNumber(): number {
    return ++this.requestCounter
  }

  /** The logged requests, oldest first: all, or the newest `newest`. */
  requests(newest?: number): ReadonlyArray<RequestLogEntry> {
    return this.log.entries(newest)
  }

  resetLog(): void {
    this.log.reset()
  }

  // -- faults ---------------------------------------------------------------

  /** In process (`Simulator.injectFaults`): no limit on the rules pending. */
  inject(rule: { readonly path?: string | RegExp | undefined; readonly method?: string | undefined; readonly faults: ReadonlyArray<Fault> }): void {
    this.faults.inject(rule.path, rule.method, rule.faults.map((fault) => ({ fault, times: 1 })), Infinity)
  }

  /** Over HTTP (`POST /_simulator/faults`): `false`, nothing kept, once {@link FAULT_RULE_LIMIT} rules are pending. */
  injectRuns(path: string | PathGlob | undefined, method: string | undefined, runs: ReadonlyArray<{ readonly fault: Fault; readonly times: number }>): boolean {
    return this.faults.inject(path, method, runs, FAULT_RULE_LIMIT)
  }

  /** Whether the request with fault header `spec` under `key` gets the fault: the first `times` with that key and value do. */
  takeKeyed(key: string, spec: string, times: number): boolean {
    return this.faults.takeKeyed(key, spec, times)
  }

  /** Whether a request may get a fault it does not ask for: a scripted one is queued, or the failure rate is not 0. */
  faultsPending(): boolean {
    return this.faults.pending() || this.failureRate > 0
  }

  /** The next scripted fault for a request, consumed; else a run-wide random 500. */
  nextFault(method: string, path: string): Fault | undefined {
    const scripted = this.faults.next(method, path)
    if (scripted !== undefined) return scripted
    if (this.failureRate > 0 && this.random() < this.failureRate) return { _tag: "Status", status: 500 }
    return undefined
  }

  // -- authorization --------------------------------------------------------

  /** Drops expired codes and tokens (at most once a minute); expired access tokens become tombstones. */
  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MILLIS) return
    this.lastSweep = now
    for (const [key, record] of this.codes) if (record.expiresAt <= now) this.codes.delete(key)
    for (const [key, record] of this.refresh) if (record.expiresAt <= now) this.refresh.delete(key)
    for (const [key, record] of this.usedCodes) if (record.expiresAt <= now) this.usedCodes.delete(key)
    for (const [key, grant] of this.access) {
      if (grant.expiresAt <= now) {
        this.access.delete(key)
        this.bury(key)
      }
    }
  }

  private bury(accessToken: string): void {
    this.expired.add(accessToken)
    trimOldest(this.expired, TOMBSTONE_LIMIT)
  }

  /** Number of live (unswept) codes, refresh tokens and access tokens; of remembered expired tokens, exchanged codes and fault keys. */
  sizes(): Readonly<Record<"codes" | "refresh" | "access" | "expired" | "usedCodes" | "faultKeys", number>> {
    const { access, codes, expired, faults, refresh, usedCodes } = this
    return { codes: codes.size, refresh: refresh.size, access: access.size, expired: expired.size, usedCodes: usedCodes.size, faultKeys: faults.keys }
  }

  issueCode(grant: Omit<CodeRecord, "expiresAt">): string {
    this.sweep(this.now())
    const code = token("code")
    setCapped(this.codes, code, { ...grant, expiresAt: this.now() + codeLifetimeMillis }, this.codeLimit)
    return code
  }

  /**
   * Consumes a code (single use): its record and the token family the
   * exchange starts. A code presented again is `"replayed"`, and every access
   * and refresh token issued from it (through any rotation) is revoked
   * (RFC 6749 section 4.1.2).
   */
  takeCode(code: string): (CodeRecord & { readonly family: number }) | "expired" | "replayed" | undefined {
    const record = this.codes.get(code)
    if (record === undefined) {
      const used = this.usedCodes.get(code)
      if (used === undefined) return undefined
      this.revokeFamily(used.family)
      return "replayed"
    }
    this.codes.delete(code)
    const now = this.now()
    if (record.expiresAt <= now) return "expired"
    const family = ++this.families
    setCapped(this.usedCodes, code, { family, expiresAt: now + TokenLifetimes.refreshSeconds * 1000 }, USED_CODE_LIMIT)
    return { ...record, family }
  }

  /** Revokes (forgets) every access and refresh token of a code exchange. */
  private revokeFamily(family: number): void {
    for (const [key, grant] of this.access) if ((grant as Partial<UserGrant>).family === family) this.access.delete(key)
    for (const [key, record] of this.refresh) if (record.family === family) this.refresh.delete(key)
  }

  issueUserTokens(grant: {
    readonly userIndex: number
    readonly scopes: ReadonlySet<Permission>
    readonly mode: Mode
    readonly family: number
  }) {
    const now = this.now()
    this.sweep(now)
    const accessToken = token("at")
    const refreshToken = token("rt")
    const { family, mode, scopes, userIndex } = grant
    const access = { _tag: "User" as const, userIndex, scopes, mode, family, expiresAt: now + this.accessSeconds * 1000 }
    setCapped(this.access, accessToken, access, this.tokenLimit)
    const refresh = { userIndex, scopes, mode, family, expiresAt: now + TokenLifetimes.refreshSeconds * 1000 }
    setCapped(this.refresh, refreshToken, refresh, this.tokenLimit)
    return { accessToken, refreshToken }
  }

  issueAppToken(): string {
    this.sweep(this.now())
    const accessToken = token("app")
    setCapped(this.access, accessToken, { _tag: "App", expiresAt: this.now() + this.accessSeconds * 1000 }, this.tokenLimit)
    return accessToken
  }

  /** Consumes a refresh token (rotation: each refresh token works once). */
  takeRefresh(refreshToken: string): RefreshRecord | "expired" | undefined {
    const record = this.refresh.get(refreshToken)
    if (record === undefined) return undefined
    this.refresh.delete(refreshToken)
    return record.expiresAt <= this.now() ? "expired" : record
  }

  /** The grant of a bearer access token, `"expired"`, or undefined when unknown. */
  grantOf(accessToken: string): Grant | "expired" | undefined {
    const grant = this.access.get(accessToken)
    if (grant === undefined) return this.expired.has(accessToken) ? "expired" : undefined
    if (grant.expiresAt <= this.now()) {
      this.access.delete(accessToken)
      this.bury(accessToken)
      return "expired"
    }
    return grant
  }
}
