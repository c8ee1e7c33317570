/**
 * Phases 1 and 2 of `run.ts`: latency per call (interleaved in shuffled
 * order) and CPU per call.
 */
import { Effect } from "effect"
import { Vehicles } from "@connected-vehicle/legacy-v2/Vehicles"
import { Connections } from "@connected-vehicle/v3/Connections"
import { Signals } from "@connected-vehicle/v3/Signals"
import {
  type Clients,
  CPU_CALLS,
  CPU_ROUNDS,
  fetchJson,
  median,
  quantile,
  ROUNDS,
  seeded,
  shuffle,
  TARGET_MEDIAN,
  TARGET_P90,
  undiciJson,
  verdict,
  type Verdicts,
  WARMUP,
  x
} from "./utils.ts"

type Variant = readonly [name: string, run: () => Promise<unknown>]
interface Case {
  readonly name: string
  readonly variants: ReadonlyArray<Variant>
}

const RAW = "raw undici request() + JSON.parse"
const SDK = "SDK (ConnectedVehicle.layer)"
const PROMISE = "Promise client (createClient)"

const perCallCases = async (c: Clients): Promise<ReadonlyArray<Case>> => {
  const run = Effect.runPromiseWith(c.context)
  const { sim } = c
  // a connected vehicle, its user and one of its signals, read through the SDK
  const first = await run(Effect.flatMap(Effect.service(Connections), (s) => s.list({ pageSize: 1 })))
  const connection = first.data[0]!
  const vehicleId = connection.relationships.vehicle.data.id
  const userId = connection.attributes.user.id
  const signals = await run(Effect.flatMap(Effect.service(Signals), (s) => s.list({ vehicleId, userId, pageSize: 1 })))
  const target = { vehicleId, userId, code: signals.data[0]!.attributes.code }
  const legacyIds = await run(Effect.flatMap(Effect.service(Vehicles), (s) => s.list({ limit: 1 })))
  const legacyVehicle = legacyIds.vehicles[0]!

  const signalGet = Effect.flatMap(Effect.service(Signals), (s) => s.get(target))
  const odometer = Effect.flatMap(Effect.service(Vehicles), (s) => s.odometer(legacyVehicle))
  const signalUrl = `${sim.url}/v3/vehicles/${target.vehicleId}/signals/${target.code}`
  const signalHeaders = { authorization: c.applicationBearer, "sc-user-id": target.userId, accept: "application/json" }
  const odometerUrl = `${sim.url}/v2.0/vehicles/${legacyVehicle}/odometer`
  const odometerHeaders = { authorization: c.userBearer, "sc-unit-system": "metric", accept: "application/json" }
  return [{
    name: "legacy odometer",
    variants: [
      [RAW, () => undiciJson(odometerUrl, odometerHeaders)],
      ["raw fetch + json()", () => fetchJson(odometerUrl, odometerHeaders)],
      [SDK, () => run(odometer)],
      [PROMISE, () => c.client.legacy.odometer(legacyVehicle)]
    ]
  }, {
    name: "v3 signals.get",
    variants: [
      [RAW, () => undiciJson(signalUrl, signalHeaders)],
      ["raw fetch + json()", () => fetchJson(signalUrl, signalHeaders)],
      [SDK, () => run(signalGet)],
      [PROMISE, () => c.client.v3.signals.get(target)]
    ]
  }]
}

/**
 * Every variant of every case once per round, in a new shuffled order each
 * round (a fixed seed): each variant follows every other one equally often,
 * so whatever a variant leaves behind for the event loop (`fetch` leaves the
 * most) is not always paid by the same next variant, as it is with a rotation
 * of a fixed sequence. The timings per variant.
 */
const interleave = async (cases: ReadonlyArray<Case>) => {
  const all = cases.flatMap((c) => c.variants.map(([name, run]) => [`${c.name}|${name}`, run] as const))
  const times = new Map(all.map(([key]) => [key, [] as Array<number>]))
  const random = seeded(14)
  const order = all.map((_, k) => k)
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    shuffle(order, random)
    for (let j = 0; j < all.length; j++) {
      const [key, run] = all[order[j]!]!
      const start = performance.now()
      await run()
      if (i >= WARMUP) times.get(key)!.push(performance.now() - start)
    }
  }
  return times
}

/**
 * CPU time of this process per call: each variant alone in its own block,
 * the blocks in a new shuffled order each round (a fixed seed), so that no
 * variant always follows the same one (a block pays for the garbage the one
 * before it left: in a rotation the SDK always followed `fetch`); median
 * over the rounds.
 */
const cpuPerCall = async (cases: ReadonlyArray<Case>) => {
  const all = cases.flatMap((c) => c.variants.map(([name, run]) => [`${c.name}|${name}`, run] as const))
  const samples = new Map(all.map(([key]) => [key, [] as Array<number>]))
  const random = seeded(41)
  const order = all.map((_, k) => k)
  for (let round = 0; round < CPU_ROUNDS; round++) {
    shuffle(order, random)
    for (let j = 0; j < all.length; j++) {
      const [key, run] = all[order[j]!]!
      for (let i = 0; i < 20; i++) await run() // back in this variant's steady state
      const before = process.cpuUsage()
      for (let i = 0; i < CPU_CALLS; i++) await run()
      const used = process.cpuUsage(before)
      samples.get(key)!.push((used.user + used.system) / CPU_CALLS)
    }
  }
  return new Map([...samples].map(([key, xs]) => [key, median(xs)]))
}

export const perCallPhase = async (c: Clients, verdicts: Verdicts) => {
  const cases = await perCallCases(c)
  const started = performance.now()
  const times = await interleave(cases)
  const variants = cases.reduce((n, c) => n + c.variants.length, 0)
  console.log(
    `\nlatency: ${ROUNDS} interleaved rounds (after ${WARMUP} warm-up) of ${variants} requests, simulator in its own process at ${c.sim.url}, ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s`
  )
  const cpuStarted = performance.now()
  const cpu = await cpuPerCall(cases)
  for (const k of cases) {
    const raw = times.get(`${k.name}|${RAW}`)!
    const rawMedian = median(raw)
    const rawP90 = quantile(raw, 0.9)
    const rawCpu = cpu.get(`${k.name}|${RAW}`)!
    console.log(`  ${k.name}`)
    console.log(`    ${"variant".padEnd(36)} ${"median".padStart(9)} ${"p90".padStart(9)}   ratio median / p90   CPU per call`)
    for (const [name] of k.variants) {
      const xs = times.get(`${k.name}|${name}`)!
      const m = median(xs)
      const p90 = quantile(xs, 0.9)
      const cpuMicros = cpu.get(`${k.name}|${name}`)!
      console.log(
        `    ${name.padEnd(36)} ${m.toFixed(3).padStart(6)} ms ${p90.toFixed(3).padStart(6)} ms   ` +
          `${x(m / rawMedian)} / ${x(p90 / rawP90)}   ${cpuMicros.toFixed(0).padStart(4)} µs (${x(cpuMicros / rawCpu)})`
      )
      if (name === SDK || name === PROMISE) {
        const ok = m / rawMedian <= TARGET_MEDIAN && p90 / rawP90 <= TARGET_P90
        verdicts.lines.push(
          `${k.name}, ${name}: median ${x(m / rawMedian)} (<= ${TARGET_MEDIAN}x), p90 ${x(p90 / rawP90)} (<= ${TARGET_P90}x) of raw undici: ${
            verdict(ok)
          }${name === PROMISE ? " (reported; the targets are the SDK's)" : ""}`
        )
      }
    }
  }
  console.log(
    `  (CPU per call: process.cpuUsage() of this client process, ${CPU_ROUNDS} shuffled blocks of ${CPU_CALLS} calls per variant, median; ` +
      `${((performance.now() - cpuStarted) / 1000).toFixed(1)} s)`
  )
}
