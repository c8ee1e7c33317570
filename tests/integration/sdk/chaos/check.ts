/**
 * What the chaos drivers check of every call's end and of a client once its
 * calls ended: outcomes typed (the documented error model), no defect, no
 * secret in an error or a log line, within the budget, the proxy's stalled
 * exchanges closed and the undici agent idle, refresh tokens spent once.
 */
import { Cause, Exit } from "effect"
import type { Agent } from "undici"
import * as ClientError from "@connected-vehicle/sdk/ClientError"
import type { Proxy } from "./proxy.ts"

export const problems: Array<string> = []
process.on("unhandledRejection", (e) => problems.push(`unhandledRejection: ${String(e)}`))
process.on("uncaughtException", (e) => problems.push(`uncaughtException: ${String(e)}`))

/** The reasons of `ConnectedVehicleError` (transport and service). */
const reasons = new Set([
  "Timeout", "Connection", "MalformedBody", "UnexpectedStatus", "InvalidResponse", "InvalidRequest", "Credentials", "OAuth",
  "Authentication", "PermissionDenied", "Billing", "Compatibility", "ConnectedServicesAccount", "RateLimit", "NotFound",
  "Server", "Upstream", "Validation", "VehicleState", "Unrecognized", "NotConnected"
])

export const mulberry = (a: number) => () => {
  a |= 0
  a = (a + 0x6d2b79f5) | 0
  let t = Math.imul(a ^ (a >>> 15), 1 | a)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** The secrets no error or log line may show: the client secret (and its Basic credential), every token seen. */
export const secretsOf = (proxy: Proxy, clientId: string, clientSecret: string) => [
  clientSecret,
  Buffer.from(`${clientId}:${clientSecret}`, "utf8").toString("base64"),
  ...proxy.secrets
]

const leaks = (text: string, secrets: ReadonlyArray<string>) => secrets.some((s) => s !== "" && text.includes(s))

/** The outcome of an Effect call (`ok`, `interrupted`, a reason tag...), its problems noted. */
export const outcomeOfExit = (name: string, i: number, exit: Exit.Exit<string, unknown>, secrets: ReadonlyArray<string>): string => {
  if (Exit.isSuccess(exit)) return exit.value
  const error = Cause.findErrorOption(exit.cause)
  if (error._tag === "None") {
    const outcome = `DEFECT ${Cause.pretty(exit.cause).slice(0, 400)}`
    problems.push(`[${name}] call ${i}: ${outcome}`)
    return "DEFECT"
  }
  const e = error.value as { _tag: string; reason?: { _tag: string; description?: string; error?: string }; message: string }
  let outcome = e._tag === "ConnectedVehicleError" ? `${e.reason?._tag}` : e._tag
  if (e._tag === "InvalidArgument") problems.push(`[${name}] call ${i}: ${e.message}`)
  else if (e._tag !== "ConnectedVehicleError" || !reasons.has(outcome)) problems.push(`[${name}] call ${i}: untyped ${e._tag} ${outcome}`)
  if (leaks(`${String(e)} ${e.message} ${JSON.stringify(e)} ${Cause.pretty(exit.cause)}`, secrets)) problems.push(`[${name}] call ${i}: secret in error ${outcome}`)
  if (outcome === "OAuth") outcome += `:${e.reason?.error}`
  return outcome
}

/** The outcome of a Promise call that threw `error`, its problems noted. */
export const outcomeOfThrow = (name: string, i: number, error: unknown, secrets: ReadonlyArray<string>): string => {
  if (!(error instanceof ClientError.ConnectedVehicleError)) {
    problems.push(`[${name}] call ${i}: not a client error: ${String(error)}`)
    return "untyped"
  }
  const outcome = error.constructor.name
  if (outcome === "ConnectedVehicleError" || outcome === "UnrecognizedError" || outcome === "InvalidArgumentError") {
    problems.push(`[${name}] call ${i}: ${outcome} ${error.message}`)
  }
  if (leaks(`${String(error)} ${error.message} ${JSON.stringify(error)} ${error.stack} ${String(error.cause)}`, secrets)) {
    problems.push(`[${name}] call ${i}: secret in ${outcome}`)
  }
  return outcome
}

export const tally = (outcomes: ReadonlyArray<string>) => {
  const summary = new Map<string, number>()
  for (const o of outcomes) summary.set(o, (summary.get(o) ?? 0) + 1)
  return JSON.stringify(Object.fromEntries([...summary].sort((a, b) => b[1] - a[1])))
}

/** Runs `one(i)` for `i` < `calls`, `concurrency` at a time. */
export const pool = async (calls: number, concurrency: number, one: (i: number) => Promise<void>) => {
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < calls) await one(next++)
  }))
}

/** Once a client's calls ended: stalled exchanges, the agent, Retry-After, secrets in logs, refresh tokens. */
export const afterClient = async (name: string, proxy: Proxy, agent: Agent | undefined, logLines: Array<string>, secrets: () => ReadonlyArray<string>) => {
  await new Promise((r) => setTimeout(r, 600))
  const stats = agent === undefined ? undefined : Object.values(agent.stats)[0] as { connected?: number; pending?: number; running?: number } | undefined
  console.log(`[${name}] faults ${JSON.stringify(Object.fromEntries(proxy.counts))}`)
  console.log(`[${name}] after: proxy sockets open ${proxy.open()}, stalled still open ${proxy.stalledOpen()}, agent ${JSON.stringify(stats)}`)
  if (proxy.stalledOpen() > 0) problems.push(`[${name}] ${proxy.stalledOpen()} stalled exchanges still open: ${proxy.stalledWhat().join(", ")}`)
  if (stats !== undefined && ((stats.pending ?? 0) > 0 || (stats.running ?? 0) > 0)) problems.push(`[${name}] agent not idle: ${JSON.stringify(stats)}`)
  for (const e of proxy.early) problems.push(`[${name}] Retry-After not honoured: ${e}`)
  const all = secrets()
  for (const line of logLines) if (leaks(line, all)) problems.push(`[${name}] secret in a log line: ${line.slice(0, 200)}`)
  logLines.length = 0
  // a refresh token sent again after the service answered it (its new tokens delivered): spent twice
  const spent = new Map<string, boolean>()
  for (const g of proxy.grants) {
    if (g.refreshToken === undefined) continue
    if (spent.get(g.refreshToken) === true) problems.push(`[${name}] a refresh token spent again after its answer was delivered (${g.kind})`)
    if (g.status === 200 && g.delivered) spent.set(g.refreshToken, true)
  }
  const grants = new Map<string, number>()
  for (const g of proxy.grants) grants.set(g.grant, (grants.get(g.grant) ?? 0) + 1)
  console.log(`[${name}] token requests ${JSON.stringify(Object.fromEntries(grants))}, most at once ${JSON.stringify(Object.fromEntries(proxy.maxInFlight))}, injected 401s ${proxy.rejected.length} (${new Set(proxy.rejected).size} tokens)`)
  for (const [grant, most] of proxy.maxInFlight) if (most > 1) problems.push(`[${name}] ${most} ${grant} token requests at once (not single flight)`)
}
