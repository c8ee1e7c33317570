/**
 * What the phases of `run.ts` share: the settings (environment variables and
 * targets), statistics, GC control, the raw calls and the clients under test
 * on one simulator.
 */
import { Effect, ManagedRuntime, Option, Redacted } from "effect"
import type { Context } from "effect"
import { request } from "undici"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { Connections } from "@connected-vehicle/v3/Connections"
import { createClient } from "@connected-vehicle/sdk/Client"
import type { Client } from "@connected-vehicle/sdk/Client"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import type { SimAddress } from "./simulator.ts"

export const WARMUP = Number(process.env["BENCH_WARMUP"] ?? 300)
export const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 2000)
export const CPU_CALLS = Number(process.env["BENCH_CPU_CALLS"] ?? 300)
export const CPU_ROUNDS = 5
export const PAGING_REPEATS = Number(process.env["BENCH_PAGING_REPEATS"] ?? 3)
export const PHASES = new Set((process.env["BENCH_PHASES"] ?? "call,paging,readahead").split(",").map((phase) => phase.trim()))
export const SMALL = 1_000
export const LARGE = 100_000

export const TARGET_MEDIAN = 1.15
export const TARGET_P90 = 1.2
export const TARGET_PAGING = 1.05
export const TARGET_RSS_FLAT = 1.1

export const redirectUri = "https://app.example/callback"

export const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  const i = (s.length - 1) * q
  const lo = Math.floor(i)
  const hi = Math.ceil(i)
  return s[lo]! + (s[hi]! - s[lo]!) * (i - lo)
}
export const median = (xs: ReadonlyArray<number>) => quantile(xs, 0.5)
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
export const x = (ratio: number) => `${ratio.toFixed(3)}x`
export const verdict = (ok: boolean) => ok ? "met" : "NOT met"

/** A small deterministic generator (mulberry32): the same orders on every run. */
export const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
}

/** Fisher-Yates, in place. */
export const shuffle = (xs: Array<number>, random: () => number) => {
  for (let i = xs.length - 1; i > 0; i--) {
    const k = Math.floor(random() * (i + 1))
    const t = xs[i]!
    xs[i] = xs[k]!
    xs[k] = t
  }
}
export const gc = () => globalThis.gc?.()
/**
 * Before a run: with `full` (the memory runs), full GCs, so the run starts
 * from the same heap whatever ran before it; otherwise (the timed runs) one
 * young-generation GC, so no run starts with the young garbage of the one
 * before it (what older runs promoted is collected by a major GC whenever V8
 * runs one, in whichever run: the shuffled order spreads that evenly).
 * Not a full GC before each timed run: V8 then drops the optimized code whose
 * embedded maps died with the last run's objects ("embedded weak objects
 * cleared") and every run re-optimizes from cold, a cost an application pays
 * once per major GC, not once per listing: it made a 1,000-item
 * `Connections.stream` (25 ms) cost 2x its steady CPU. `BENCH_FULL_GC=1`
 * measures that case: full GCs before every run.
 */
export const settle = async (full: boolean) => {
  full ||= process.env["BENCH_FULL_GC"] === "1"
  for (let i = 0; i < (full ? 3 : 1); i++) {
    if (full) gc()
    else globalThis.gc?.({ type: "minor" })
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** The code of the simulator's consent redirect for `userId` (approved at once, not followed). */
export const consentCode = async (sim: SimAddress, userId: string): Promise<string> => {
  const query = new URLSearchParams({ response_type: "code", client_id: sim.clientId, redirect_uri: redirectUri, login_hint: userId })
  const response = await request(`${sim.url}/oauth/authorize?${query}`)
  await response.body.dump()
  const location = response.headers["location"]
  const code = new URL(typeof location === "string" ? location : "", sim.url).searchParams.get("code")
  if (code === null) throw new Error(`the simulator refused consent for ${userId}: ${response.statusCode}`)
  return code
}

/** Raw undici: one GET, the body read as text and given to `JSON.parse`. */
export const undiciJson = async (url: string, headers: Record<string, string>): Promise<unknown> => {
  const response = await request(url, { headers })
  const text = await response.body.text()
  if (response.statusCode !== 200) throw new Error(`raw undici ${url}: ${response.statusCode} ${text}`)
  return JSON.parse(text)
}

/** Raw fetch: one GET and `json()`. */
export const fetchJson = async (url: string, headers: Record<string, string>): Promise<unknown> => {
  const response = await fetch(url, { headers })
  if (response.status !== 200) throw new Error(`raw fetch ${url}: ${response.status} ${await response.text()}`)
  return response.json()
}

export interface Clients {
  readonly sim: SimAddress
  readonly context: Context.Context<ConnectedVehicle.Services>
  readonly client: Client
  readonly applicationBearer: string
  readonly userBearer: string
  readonly dispose: () => Promise<void>
}

const bearerOf = (context: Context.Context<ConnectedVehicle.Services>, key: string) =>
  Effect.runPromiseWith(context)(Effect.flatMap(Effect.service(TokenStore.TokenStore), (store) => store.get(key))).then(
    (token) => `Bearer ${Redacted.value(Option.getOrThrow(token).accessToken)}`
  )

export const clientsOn = async (sim: SimAddress, userId: string | undefined): Promise<Clients> => {
  // the SDK on its default layer: the Effect services of `ConnectedVehicle.layer`
  const runtime = ManagedRuntime.make(ConnectedVehicle.layer({
    transport: { roots: TransportConfig.rootsFromOrigin(sim.url) },
    oauth: { clientId: sim.clientId, clientSecret: Redacted.make(sim.clientSecret) }
  }))
  const context = await runtime.context()
  // the Promise client, its own runtime on the same layer
  const client = createClient({ clientId: sim.clientId, clientSecret: sim.clientSecret, origin: sim.url })
  // the application token, fetched by a first call of each
  await Effect.runPromiseWith(context)(Effect.flatMap(Effect.service(Connections), (c) => c.list({ pageSize: 1 })))
  await client.v3.connections.list({ pageSize: 1 })
  let userBearer = ""
  if (userId !== undefined) {
    const code = await consentCode(sim, userId)
    await Effect.runPromiseWith(context)(Session.login("user", { code, redirectUri }))
    await client.legacy.login({ code: await consentCode(sim, userId), redirectUri })
    userBearer = await bearerOf(context, "user")
  }
  return {
    sim,
    context,
    client,
    applicationBearer: await bearerOf(context, "application"),
    userBearer,
    dispose: async () => {
      await client.close()
      await runtime.dispose()
    }
  }
}

/** The met / not met lines of the targets, collected by the phases. */
export interface Verdicts {
  readonly lines: Array<string>
}
