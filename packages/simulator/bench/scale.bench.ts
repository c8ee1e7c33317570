/**
 * Wall-clock figures of the 100,000-connection dataset (moved here from
 * `test/scale.test.ts`, which checks only correctness): start-up of a
 * loopback simulator, six reads across the dataset over loopback (first,
 * middle and last page, a user filter, the last connection by id, the last
 * subscriptions page), and a walk through all 1,000 pages in memory. Each is
 * run `--rounds` times (default 5); the report gives the median and the
 * worst, next to the budget the test used to assert (2 s, 2 s, 30 s).
 *
 *   node bench/scale.bench.ts [--rounds 5]
 */
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { layer, layerTest, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call } from "../test/helpers.ts"

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : Number(process.argv[i + 1])
}
const ROUNDS = arg("rounds", 5)

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

const check = (condition: boolean, what: string) => {
  if (!condition) throw new Error(`unexpected answer: ${what}`)
}

/** Start-up of the loopback simulator, then the six reads; both in milliseconds. */
const loopbackRound = Effect.gen(function*() {
  const started = performance.now()
  const context = yield* Layer.build(Layer.mergeAll(layer({ connections: 100_000, users: 500, seed: 3 }), FetchHttpClient.layer))
  const startup = performance.now() - started
  const reads = yield* Effect.gen(function*() {
    const sim = yield* Simulator
    const token = yield* appToken
    const t0 = performance.now()
    const headers = bearer(token)
    check((yield* call("GET", "/v3/connections?pageSize=100", { headers })).json.meta.totalCount === 100_000, "first page")
    check((yield* call("GET", "/v3/connections?page=500&pageSize=100", { headers })).json.data.length === 100, "middle page")
    check((yield* call("GET", "/v3/connections?page=1000&pageSize=100", { headers })).json.links.next === null, "last page")
    const user = sim.data.users[7]!.id
    check((yield* call("GET", `/v3/connections?filter[userId]=${user}&pageSize=100`, { headers })).status === 200, "user filter")
    const last = sim.data.connectionIds({ offset: 99_999, limit: 1 })[0]
    check((yield* call("GET", `/v3/connections/${last}`, { headers })).status === 200, "by id")
    check((yield* call("GET", "/v3/subscriptions?page=1000&pageSize=100", { headers })).json.data.length === 100, "subscriptions")
    return performance.now() - t0
  }).pipe(Effect.provide(context))
  return { startup, reads }
}).pipe(Effect.scoped)

/** The in-memory walk through 1,000 pages, in milliseconds. */
const walkRound = Effect.gen(function*() {
  const token = yield* appToken
  const t0 = performance.now()
  let next: string | null = "/v3/connections?page=1&pageSize=100"
  let pages = 0
  while (next !== null) {
    const page: { json: { links: { next: string | null } } } = yield* call("GET", next.replace(/^http:\/\/[^/]+/, ""), { headers: bearer(token) })
    next = page.json.links.next
    pages++
  }
  check(pages === 1000, "1,000 pages")
  return performance.now() - t0
}).pipe(Effect.provide(layerTest({ connections: 100_000 })))

const program = Effect.gen(function*() {
  const startups: Array<number> = []
  const reads: Array<number> = []
  const walks: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    const loopback = yield* loopbackRound
    startups.push(loopback.startup)
    reads.push(loopback.reads)
    walks.push(yield* walkRound)
  }
  const row = (name: string, xs: ReadonlyArray<number>, budget: number) =>
    `${name.padEnd(34)} median ${median(xs).toFixed(0).padStart(6)} ms   worst ${Math.max(...xs).toFixed(0).padStart(6)} ms   (former test budget ${budget} ms)`
  console.log(`100,000 connections, ${ROUNDS} rounds`)
  console.log(row("start-up (loopback layer)", startups, 2000))
  console.log(row("six reads over loopback", reads, 2000))
  console.log(row("walk of 1,000 pages (in memory)", walks, 30_000))
})

Effect.runPromise(program).then(() => process.exit(0), (error) => {
  console.error(error)
  process.exit(1)
})
