/**
 * Phase 3 of `run.ts`: paging through every connection (memory runs, each
 * variant in a process of its own, then timed runs in shuffled order).
 */
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Effect, Stream } from "effect"
import { Connections } from "@connected-vehicle/v3/Connections"
import {
  type Clients,
  gc,
  LARGE,
  mb,
  median,
  PAGING_REPEATS,
  seeded,
  settle,
  shuffle,
  SMALL,
  TARGET_PAGING,
  TARGET_RSS_FLAT,
  undiciJson,
  verdict,
  type Verdicts,
  x
} from "./utils.ts"

export interface PagingRun {
  readonly seconds: number
  /** The CPU time of this process (the client) during the run. */
  readonly cpuSeconds: number
  readonly items: number
  /** Memory runs only: the peak RSS (sampled every 5 ms and at each GC) and the largest heap after a full GC. */
  readonly peakRss: number
  readonly heapAfterGc: number
}

const GC_EVERY = 5_000

/**
 * Runs `body` (which calls `tick(seen)` as items arrive and returns the count).
 * A timed run does nothing else; a memory run (`memory`: the expected count)
 * samples the RSS every 5 ms and forces a full GC every {@link GC_EVERY}
 * items and at the last one, keeping the peak RSS and the largest heap after
 * GC: what the run holds, not how lazily V8 collects.
 */
const measure = async (body: (tick: (seen: number) => void) => Promise<number>, memory?: number): Promise<PagingRun> => {
  await settle(memory !== undefined)
  let peakRss = process.memoryUsage.rss()
  let heapAfterGc = 0
  const sample = () => {
    const rss = process.memoryUsage.rss()
    if (rss > peakRss) peakRss = rss
  }
  let next = GC_EVERY
  const tick = memory === undefined ? () => {} : (seen: number) => {
    if (seen < next && seen !== memory) return
    next += GC_EVERY
    sample()
    gc()
    heapAfterGc = Math.max(heapAfterGc, process.memoryUsage().heapUsed)
  }
  const sampler = memory === undefined ? undefined : setInterval(sample, 5)
  const cpu = process.cpuUsage()
  const start = performance.now()
  const items = await body(tick)
  const seconds = (performance.now() - start) / 1000
  const used = process.cpuUsage(cpu)
  clearInterval(sampler)
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6, items, peakRss, heapAfterGc }
}

export const PAGE = 100

type PagingVariant = readonly [name: string, run: (memory?: number) => Promise<PagingRun>]

/**
 * Every connection through a raw undici loop with `JSON.parse`, pages of
 * {@link PAGE}; `onPage` gets each page's items (awaited when it returns a
 * promise). The count of items.
 */
export const rawPages = async (c: Clients, onPage: (items: ReadonlyArray<unknown>) => void | Promise<void>): Promise<number> => {
  let seen = 0
  for (let page = 1;; page++) {
    const body = await undiciJson(`${c.sim.url}/v3/connections?page=${page}&pageSize=${PAGE}`, {
      authorization: c.applicationBearer,
      accept: "application/json"
    }) as { readonly data: ReadonlyArray<unknown>; readonly links: { readonly next: string | null } }
    seen += body.data.length
    const handled = onPage(body.data)
    if (handled !== undefined) await handled
    if (body.links.next === null || body.data.length === 0) return seen
  }
}

const streamVariant = (c: Clients, name: string, options?: { readonly readAhead: 1 }): PagingVariant => [name, (memory) =>
  measure((tick) =>
    Effect.runPromiseWith(c.context)(Effect.gen(function*() {
      const connections = yield* Connections
      let seen = 0
      yield* Stream.runForEach(connections.stream({ pageSize: PAGE }, options), () => Effect.sync(() => tick(++seen)))
      return seen
    })), memory)]

/** The variants, in the order of their report (the raw loop first). */
export const pagingVariants = (c: Clients): ReadonlyArray<PagingVariant> => [
  ["raw undici loop + JSON.parse", (memory) =>
    measure((tick) => {
      let seen = 0
      return rawPages(c, (items) => {
        for (let i = 0; i < items.length; i++) tick(++seen)
      })
    }, memory)],
  streamVariant(c, "SDK Connections.stream (default)"),
  streamVariant(c, "SDK Connections.stream, readAhead 1", { readAhead: 1 }),
  ["Promise client connections.iterate", (memory) =>
    measure(async (tick) => {
      let seen = 0
      for await (const _ of c.client.v3.connections.iterate({ pageSize: PAGE })) tick(++seen)
      return seen
    }, memory)]
]

export const pagingPhase = async (small: Clients, large: Clients, verdicts: Verdicts) => {
  console.log(
    `\npaging: every connection, pages of ${PAGE}; one memory run per variant and size, each variant in a process of its own (full GC every ${GC_EVERY.toLocaleString("en-US")} items), ` +
      `then timed runs in shuffled order (median time)`
  )
  const sizes = [[SMALL, small, PAGING_REPEATS * 10], [LARGE, large, PAGING_REPEATS]] as const
  // the memory runs: each variant in a fresh process of its own, both sizes
  // one after the other (in one process shared by the variants, the RSS that
  // the earlier variants left grew the peak of the later ones: the last one
  // measured 1.27x where it measured 1.14x when first)
  const memoryOf = new Map<string, Map<number, PagingRun>>()
  const names = pagingVariants(small).map(([name]) => name)
  for (let k = 0; k < names.length; k++) {
    const { large: largeRun, small: smallRun } = await memoryRunsApart(k, small.sim, large.sim)
    memoryOf.set(names[k]!, new Map([[SMALL, smallRun], [LARGE, largeRun]]))
  }
  // one untimed run of each variant and size: the simulators and the clients warmed up
  for (const [size, c] of sizes) {
    for (const [name, run] of pagingVariants(c)) {
      const result = await run()
      if (result.items !== size) throw new Error(`${name}: ${result.items} items, expected ${size}`)
    }
  }
  for (const [size, c, repeats] of sizes) {
    const variants = pagingVariants(c)
    const started = performance.now()
    const runs = new Map(variants.map(([name]) => [name, [] as Array<number>]))
    const cpus = new Map(variants.map(([name]) => [name, [] as Array<number>]))
    const random = seeded(size)
    const order = variants.map((_, k) => k)
    for (let i = 0; i < repeats; i++) {
      shuffle(order, random)
      for (let j = 0; j < variants.length; j++) {
        const [name, run] = variants[order[j]!]!
        const result = await run()
        if (result.items !== size) throw new Error(`${name}: ${result.items} items, expected ${size}`)
        runs.get(name)!.push(result.seconds)
        cpus.get(name)!.push(result.cpuSeconds)
      }
    }
    const rawName = variants[0]![0]
    const rawSeconds = median(runs.get(rawName)!)
    console.log(
      `  ${size.toLocaleString("en-US")} connections (${size / PAGE} pages, simulator at ${c.sim.url}, ${repeats} timed runs each, ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s)`
    )
    for (const [name] of variants) {
      const seconds = median(runs.get(name)!)
      const memory = memoryOf.get(name)!.get(size)!
      console.log(
        `    ${name.padEnd(36)} ${(seconds * 1000).toFixed(1).padStart(8)} ms ${Math.round(size / seconds).toLocaleString("en-US").padStart(8)} items/s  ` +
          `${x(seconds / rawSeconds)} raw   client CPU ${(median(cpus.get(name)!) * 1000).toFixed(1)} ms   peak RSS ${mb(memory.peakRss)}, heap after GC ${mb(memory.heapAfterGc)}`
      )
      if (name !== rawName) {
        verdicts.lines.push(
          `paging ${size.toLocaleString("en-US")}, ${name}: ${x(seconds / rawSeconds)} of the raw loop (<= ${TARGET_PAGING}x): ${
            verdict(seconds / rawSeconds <= TARGET_PAGING)
          }${name.startsWith("Promise") || name.includes("readAhead 1") ? " (reported; the target is the SDK's default)" : ""}`
        )
      }
    }
  }
  for (const [name, bySize] of memoryOf) {
    const smallRun = bySize.get(SMALL)!
    const largeRun = bySize.get(LARGE)!
    const ratio = largeRun.peakRss / smallRun.peakRss
    verdicts.lines.push(
      `peak RSS ${LARGE.toLocaleString("en-US")} / ${SMALL.toLocaleString("en-US")}, ${name}: ${mb(largeRun.peakRss)} / ${mb(smallRun.peakRss)} = ${
        x(ratio)
      } (flat: <= ${TARGET_RSS_FLAT}x): ${verdict(ratio <= TARGET_RSS_FLAT)}; heap after GC ${mb(largeRun.heapAfterGc)} / ${mb(smallRun.heapAfterGc)}`
    )
  }
}

/** What a client needs of a simulator, as JSON (not its process). */
const addressOf = ({ clientId, clientSecret, url }: Clients["sim"]) => JSON.stringify({ url, clientId, clientSecret })

const memoryScript = fileURLToPath(new URL("./pagingMemory.ts", import.meta.url))

/** The memory runs of variant `k` on both simulators, in a child process (`pagingMemory.ts`). */
const memoryRunsApart = (k: number, small: Clients["sim"], large: Clients["sim"]): Promise<{ readonly small: PagingRun; readonly large: PagingRun }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", memoryScript, String(k), addressOf(small), addressOf(large)], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => out += chunk)
    child.on("error", reject)
    child.on("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("{\"small\""))
      if (code !== 0 || line === undefined) reject(new Error(`the memory runs of variant ${k} ended with ${code}:\n${out}`))
      else resolve(JSON.parse(line))
    })
  })
