/**
 * A chaos campaign past `run.ts`: the legacy v2.0 reads of a signed-in user
 * (`Vehicles` of `ConnectedVehicle.layer`, the Promise client's `legacy`)
 * with 401s among the faults (the user token refreshed and the call
 * replayed once), `onResponse` hooks (per call and per client: slow,
 * throwing, failing, dying, not Effects, reading the body) and faults of the
 * token endpoint with many calls at once (renewals single flight, typed,
 * recovered once the endpoint is healthy). Every call's end is checked as in
 * `run.ts` (`check.ts`).
 *
 *   node tests/integration/sdk/chaos/campaign.ts (Node 24, as `node_modules/.bin/node`, from tests/integration) [seed] [calls] [phases: legacy,token] [kinds: undici,undici+spans,promise]
 */
import { Effect, Layer, Logger, ManagedRuntime, Redacted, Stream } from "effect"
import { HttpClient } from "effect/http"
import type { HttpClientResponse } from "effect/http"
import { Agent } from "undici"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import * as Client from "@connected-vehicle/sdk/Client"
import * as Session from "@connected-vehicle/auth/Session"
import { LegacyApi, VehicleApi } from "@connected-vehicle/schema/Api"
import type { LegacyPath } from "@connected-vehicle/schema/Legacy"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
import { Signals } from "@connected-vehicle/v3/Signals"
import { Connections } from "@connected-vehicle/v3/Connections"
import { startSimulator } from "../bench/simulator.ts"
import { consentCode, redirectUri } from "../bench/utils.ts"
import type { FaultKind, Proxy } from "./proxy.ts"
import { faultKinds, startProxy } from "./proxy.ts"
import { afterClient, mulberry, outcomeOfExit, outcomeOfThrow, pool, problems, secretsOf, tally } from "./check.ts"

const seed = Number(process.argv[2] ?? Date.now() % 1_000_000)
const calls = Number(process.argv[3] ?? 300)
const phases = (process.argv[4] ?? "legacy,token").split(",")
const kindNames = (process.argv[5] ?? "undici,undici+spans,promise").split(",")
console.log(`chaos campaign seed=${seed} calls=${calls} phases=${phases} kinds=${kindNames}`)

const sim = await startSimulator(40)
const { clientId, clientSecret } = sim
/** The budget of a call: its retries' 3 s, a token request or two (1 s each) and a margin. */
const BUDGET = 3_000 + 2_000 + 500

// the targets, straight from the simulator
const targets = await (async () => {
  const client = Client.createClient({ clientId, clientSecret, origin: sim.url })
  const page = await client.v3.connections.list({ pageSize: 20 })
  await client.close()
  return page.data.map((c) => ({ vehicleId: c.relationships.vehicle.data.id, userId: c.attributes.user.id }))
})()
const userId = targets[0]!.userId

// ---------------------------------------------------------------- hooks

type Hook = (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<void>
const hookNames = ["none", "void", "slow", "throw", "fail", "die", "nonEffect", "promise", "readBody", "sometimesSlow"] as const
const hookOf = (name: typeof hookNames[number], timeoutMillis: number, r: number): Hook | undefined => {
  switch (name) {
    case "none":
      return undefined
    case "void":
      return () => Effect.void
    case "slow":
      return () => Effect.sleep(`${timeoutMillis + 300} millis`)
    case "throw":
      return () => {
        throw new Error("hook throws")
      }
    case "fail":
      return () => Effect.fail("hook fails") as unknown as Effect.Effect<void>
    case "die":
      return () => Effect.die("hook dies")
    case "nonEffect":
      return () => 42 as unknown as Effect.Effect<void>
    case "promise":
      return () => Promise.reject(new Error("hook promise")) as unknown as Effect.Effect<void>
    case "readBody":
      return (response) => Effect.ignore(response.text)
    case "sometimesSlow":
      return () => Effect.sleep(`${Math.floor(r * timeoutMillis * 1.5)} millis`)
  }
}
/** The client-level hook: its behaviour drawn from the request's URL. */
const clientHook: Hook = (response) => {
  let h = 0
  for (const c of response.request.url) h = (h * 31 + c.charCodeAt(0)) >>> 0
  return hookOf(hookNames[h % hookNames.length]!, 400, (h % 100) / 100)?.(response) ?? Effect.void
}

// ---------------------------------------------------------------- the Effect SDK

const paths: ReadonlyArray<LegacyPath> = ["/odometer", "/location", "/tires/pressure", "/engine/oil", "/vin"]

const effectKind = async (name: string, httpSpans: boolean, phase: string) => {
  const token = phase === "token"
  const proxy = await startProxy({
    upstream: sim.url,
    seed,
    ...(token ? { rate: 0.3, kinds: ["status401", "status500", "cutBody", "stallHead"] satisfies Array<FaultKind>, tokenRate: 0.7 } : {})
  })
  const agent = new Agent({ connections: 64 })
  const logLines: Array<string> = []
  const layer = ConnectedVehicle.layer({
    transport: {
      roots: TransportConfig.rootsFromOrigin(proxy.origin),
      timeout: "1 second",
      retry: { maxElapsed: "3 seconds", initialDelay: "20 millis", maxDelay: "300 millis" },
      httpSpans,
      logLevel: "Debug"
    },
    oauth: { clientId, clientSecret: Redacted.make(clientSecret) },
    httpClient: Layer.succeed(HttpClient.HttpClient, UndiciHttpClient.make(agent))
  }).pipe(Layer.merge(Logger.layer([Logger.make((o) => void logLines.push(JSON.stringify(o.message)))])))
  const runtime = ManagedRuntime.make(layer)
  await runtime.runPromise(Session.login("user", { code: await consentCode(sim, userId), redirectUri }))
  const ids = [...(await runtime.runPromise(Effect.flatMap(Effect.service(Vehicles), (v) => v.list({ limit: 50 })))).vehicles]
  // clients with a hook of their own (`Transport.ClientOptions.onResponse`)
  const hooked = await runtime.runPromise(Effect.all({
    legacy: Effect.provide(Transport.client(LegacyApi, "legacy", { onResponse: clientHook }), Session.layerUser("user")),
    signals: Effect.provide(Transport.client(VehicleApi, "signals", { onResponse: clientHook }), Session.layerApplication())
  }))
  if (!token) {
    // the application token fetched before the faults (the token phase starts cold)
    await runtime.runPromise(Effect.flatMap(Effect.service(Connections), (c) => c.list({ pageSize: 1 })))
  }
  proxy.enabled = true
  proxy.tokenFaults = token
  const secrets = () => secretsOf(proxy, clientId, clientSecret)
  const byOp = new Map<string, Array<string>>()
  const one = (offset: number, tag: string) => async (i: number) => {
    const rng = mulberry(seed * 100_003 + i + offset)
    const target = targets[Math.floor(rng() * targets.length)]!
    const id = ids[Math.floor(rng() * ids.length)]!
    const timeout = 100 + Math.floor(rng() * 1200)
    const maxRetries = Math.floor(rng() * 4)
    const interruptAt = rng() < 0.2 ? Math.floor(rng() * 1500) : undefined
    const hookName = hookNames[Math.floor(rng() * hookNames.length)]!
    const onResponse = hookOf(hookName, timeout, rng())
    const options = { timeout: `${timeout} millis`, maxRetries, ...(onResponse === undefined ? {} : { onResponse }) } as const
    const ops = ["odometer", "location", "batch", "list", "stream", "hookedLegacy", "hookedSignals", "signals"] as const
    const op = ops[Math.floor(rng() * ops.length)]!
    const k = 1 + Math.floor(rng() * 4)
    const effect: Effect.Effect<unknown, unknown, ConnectedVehicle.Services> = Effect.gen(function*() {
      const vehicles = yield* Vehicles
      switch (op) {
        case "odometer":
          return yield* vehicles.odometer(id, options)
        case "location":
          return yield* vehicles.location(id, options)
        case "batch":
          return yield* vehicles.batch(id, [paths[0]!, ...paths.slice(1, 1 + k)], options)
        case "list":
          return yield* vehicles.list({ limit: k, offset: i % 10 }, options)
        case "stream":
          return yield* Stream.runCollect(Stream.take(vehicles.stream({ limit: k }, options), 1 + (i % 5)))
        case "hookedLegacy":
          return yield* hooked.legacy.odometer({ params: { id }, headers: { "sc-unit-system": "metric" } }, options)
        case "hookedSignals":
          return yield* hooked.signals.list({ params: { vehicleId: target.vehicleId }, headers: { "sc-user-id": target.userId }, query: { page: 1, pageSize: k } }, options)
        case "signals":
          return yield* (yield* Signals).get({ ...target, code: "odometer-traveleddistance" }, options)
      }
    })
    const guarded = interruptAt === undefined
      ? Effect.as(effect, "ok")
      : Effect.map(Effect.timeoutOption(effect, `${interruptAt} millis`), (o) => o._tag === "None" ? "interrupted" : "ok")
    const t0 = performance.now()
    const exit = await runtime.runPromiseExit(guarded)
    const took = performance.now() - t0
    const outcome = outcomeOfExit(name, i, exit, secrets())
    if (took > BUDGET) problems.push(`[${name}] ${tag} call ${i} (${op}, hook ${hookName}): ${Math.round(took)} ms (${outcome})`)
    const key = `${tag} ${op.startsWith("hooked") || op === "signals" ? op : "legacy"}`
    byOp.set(key, [...(byOp.get(key) ?? []), outcome])
    byHook.set(hookName, [...(byHook.get(hookName) ?? []), outcome])
  }
  const byHook = new Map<string, Array<string>>()
  const started = performance.now()
  await pool(calls, 32, one(0, "faulty"))
  if (token) {
    // the token endpoint healthy again: every credential recovers
    proxy.tokenFaults = false
    await pool(Math.ceil(calls / 3), 32, one(1_000_000, "healed"))
    checkHealed(name, proxy, byOp)
  }
  console.log(`[${name}/${phase}] ${calls} calls in ${Math.round(performance.now() - started)} ms`)
  for (const [key, outcomes] of byOp) console.log(`[${name}/${phase}] ${key}: ${tally(outcomes)}`)
  for (const [hook, outcomes] of byHook) console.log(`[${name}/${phase}] hook ${hook}: ${tally(outcomes)}`)
  await afterClient(`${name}/${phase}`, proxy, agent, logLines, secrets)
  if (!token) checkSharedRefresh(`${name}/${phase}`, proxy)
  await runtime.dispose()
  await agent.destroy().catch(() => {})
  await proxy.close()
}

/** Without token faults, each token answered with a 401 costs one refresh at most (concurrent 401s share one). */
const checkSharedRefresh = (name: string, proxy: Proxy) => {
  const refreshes = proxy.grants.filter((g) => g.grant === "refresh_token").length
  const rejected = new Set(proxy.rejected).size
  if (refreshes > rejected) problems.push(`[${name}] ${refreshes} refreshes for ${rejected} tokens answered 401`)
}

/**
 * Once healthy: no `Credentials` failure of the application's calls; the
 * user's only when its refresh token was lost with an answer cut short, or
 * refused with `invalid_grant` (the SDK does not send a refused refresh
 * token again: the user must sign in again).
 */
const checkHealed = (name: string, proxy: Proxy, byOp: Map<string, Array<string>>) => {
  const lost = proxy.grants.some((g) => g.grant === "refresh_token" && ((g.status === 200 && !g.delivered) || g.kind === "invalidGrant"))
  for (const [key, outcomes] of byOp) {
    if (!key.startsWith("healed")) continue
    const failed = outcomes.filter((o) => o === "Credentials" || o.startsWith("OAuth")).length
    if (failed === 0) continue
    const user = !key.includes("Signals") && !key.includes("signals")
    if (user && lost) console.log(`[${name}] ${key}: ${failed} Credentials failures after a refresh answer was lost or refused (the user must sign in again)`)
    else problems.push(`[${name}] ${key}: ${failed} Credentials failures once the token endpoint was healthy`)
  }
}

// ---------------------------------------------------------------- the Promise client

const promiseKind = async (phase: string) => {
  const name = "promise"
  const token = phase === "token"
  const proxy = await startProxy({
    upstream: sim.url,
    seed,
    ...(token ? { rate: 0.3, kinds: ["status401", "status500", "cutBody", "stallHead"] satisfies Array<FaultKind>, tokenRate: 0.7 } : {})
  })
  const logLines: Array<string> = []
  const client = Client.createClient({
    clientId,
    clientSecret,
    origin: proxy.origin,
    timeout: "1 second",
    maxRetries: 2,
    transport: { retry: { maxElapsed: "3 seconds", initialDelay: "20 millis", maxDelay: "300 millis" } },
    logLevel: "debug",
    logger: (entry) => void logLines.push(JSON.stringify(entry))
  })
  await client.legacy.login({ code: await consentCode(sim, userId), redirectUri })
  const ids = [...(await client.legacy.list({ limit: 50 })).vehicles]
  if (!token) await client.v3.connections.list({ pageSize: 1 })
  proxy.enabled = true
  proxy.tokenFaults = token
  const secrets = () => secretsOf(proxy, clientId, clientSecret)
  const byOp = new Map<string, Array<string>>()
  const one = (offset: number, tag: string) => async (i: number) => {
    const rng = mulberry(seed * 100_003 + i + offset)
    const target = targets[Math.floor(rng() * targets.length)]!
    const id = ids[Math.floor(rng() * ids.length)]!
    const timeout = 100 + Math.floor(rng() * 1200)
    const maxRetries = Math.floor(rng() * 4)
    const abortAt = rng() < 0.2 ? Math.floor(rng() * 1500) : undefined
    const ops = ["odometer", "location", "batch", "list", "iterate", "signals"] as const
    const op = ops[Math.floor(rng() * ops.length)]!
    const k = 1 + Math.floor(rng() * 4)
    const controller = new AbortController()
    const timer = abortAt === undefined ? undefined : setTimeout(() => controller.abort(), abortAt)
    const options = { timeout: `${timeout} millis` as const, maxRetries, signal: controller.signal }
    const t0 = performance.now()
    let outcome = "ok"
    try {
      switch (op) {
        case "odometer":
          await client.legacy.odometer(id, options)
          break
        case "location":
          await client.legacy.location(id, options)
          break
        case "batch":
          await client.legacy.batch(id, [paths[0]!, ...paths.slice(1, 1 + k)], options)
          break
        case "list":
          await client.legacy.list({ limit: k, offset: i % 10 }, options)
          break
        case "iterate": {
          let n = 0
          for await (const _ of client.legacy.iterate({ limit: k }, options)) if (++n > i % 5) break
          break
        }
        case "signals":
          await client.v3.signals.get({ ...target, code: "odometer-traveleddistance" }, options)
          break
      }
    } catch (error) {
      outcome = outcomeOfThrow(name, i, error, secrets())
    }
    clearTimeout(timer)
    const took = performance.now() - t0
    if (took > BUDGET) problems.push(`[${name}] ${tag} call ${i} (${op}): ${Math.round(took)} ms (${outcome})`)
    const key = `${tag} ${op === "signals" ? op : "legacy"}`
    byOp.set(key, [...(byOp.get(key) ?? []), outcome])
  }
  await pool(calls, 32, one(0, "faulty"))
  if (token) {
    proxy.tokenFaults = false
    await pool(Math.ceil(calls / 3), 32, one(1_000_000, "healed"))
    checkHealed(name, proxy, new Map([...byOp].map(([k, v]) => [k.replace("Credentials", ""), v.map((o) => o === "CredentialsError" ? "Credentials" : o === "OAuthError" ? "OAuth" : o)])))
  }
  for (const [key, outcomes] of byOp) console.log(`[${name}/${phase}] ${key}: ${tally(outcomes)}`)
  await afterClient(`${name}/${phase}`, proxy, undefined, logLines, secrets)
  if (!token) checkSharedRefresh(`${name}/${phase}`, proxy)
  await client.close()
  await proxy.close()
}

for (const phase of phases) {
  for (const kind of kindNames) {
    if (kind === "promise") await promiseKind(phase)
    else await effectKind(kind, kind === "undici+spans", phase)
  }
}
void faultKinds

// the problems grouped by their text without numbers (one example each)
const groups = new Map<string, { n: number; example: string }>()
for (const p of problems) {
  const key = p.replace(/\d+/g, "#")
  const group = groups.get(key)
  if (group === undefined) groups.set(key, { n: 1, example: p })
  else group.n++
}
console.log(`problems (${problems.length}, ${groups.size} kinds):`)
for (const { example, n } of groups.values()) console.log(`  ${n} x ${example}`)
sim.child.kill()
setTimeout(() => {
  console.log("still alive 3 s after the end: handles", (process as unknown as { _getActiveHandles: () => Array<unknown> })._getActiveHandles().map((h) => (h as object).constructor.name))
}, 3_000).unref()
