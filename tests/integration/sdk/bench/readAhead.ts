/**
 * The read-ahead phase of `run.ts`: a slow consumer, `Connections.stream` on
 * demand against `readAhead: 1`.
 */
import { Effect, Stream } from "effect"
import { Connections } from "@connected-vehicle/v3/Connections"
import { type Clients, median, PAGING_REPEATS, seeded, settle, shuffle, SMALL, x } from "./utils.ts"
import { PAGE, rawPages } from "./paging.ts"

/**
 * What the read-ahead is for: a consumer that works on each page (here it
 * waits `CONSUMER_WAIT_MS` per page, as a database write would) while the next
 * page is fetched. 1,000 connections, the opt-in `readAhead: 1` vs the default
 * (on demand) and the raw loop doing the same wait; runs in shuffled order,
 * median time. Reported, no target.
 */
const CONSUMER_WAIT_MS = 3
const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export const readAheadPhase = async (c: Clients) => {
  const variants: ReadonlyArray<readonly [string, () => Promise<number>]> = [
    ["raw undici loop + JSON.parse", () => rawPages(c, () => wait(CONSUMER_WAIT_MS))],
    ...([[1, "SDK Connections.stream, readAhead 1"], [0, "SDK Connections.stream (default)"]] as const).map(([readAhead, name]) =>
      [name, () =>
        Effect.runPromiseWith(c.context)(Effect.gen(function*() {
          const connections = yield* Connections
          let seen = 0
          yield* Stream.runForEachArray(connections.stream({ pageSize: PAGE }, { readAhead }), (items) =>
            Effect.promise(() => {
              seen += items.length
              return wait(CONSUMER_WAIT_MS)
            }))
          return seen
        }))] as const
    )
  ]
  const runs = new Map(variants.map(([name]) => [name, [] as Array<number>]))
  const repeats = PAGING_REPEATS * 4
  const random = seeded(3)
  const order = variants.map((_, k) => k)
  for (let i = 0; i < repeats; i++) {
    shuffle(order, random)
    for (let j = 0; j < variants.length; j++) {
      const [name, run] = variants[order[j]!]!
      await settle(false)
      const start = performance.now()
      const items = await run()
      if (items !== SMALL) throw new Error(`${name}: ${items} items, expected ${SMALL}`)
      runs.get(name)!.push(performance.now() - start)
    }
  }
  const raw = median(runs.get(variants[0]![0])!)
  console.log(`
read-ahead: 1,000 connections, the consumer waits ${CONSUMER_WAIT_MS} ms per page, ${repeats} shuffled runs each (reported)`)
  for (const [name] of variants) {
    const ms = median(runs.get(name)!)
    console.log(`    ${name.padEnd(36)} ${ms.toFixed(1).padStart(8)} ms  ${x(ms / raw)} raw`)
  }
}
