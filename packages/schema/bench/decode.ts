// Decoding a 100-signal list page with the schema vs JSON.parse alone.
// Run: pnpm bench (from the root) or pnpm --filter @connected-vehicle/schema bench
import { Schema } from "effect"
import { SignalsPage } from "../src/Signal.ts"
import * as Samples from "../test/samples.ts"

const page = {
  ...Samples.signalsPage,
  data: Array.from({ length: 100 }, (_, i) => {
    const base = i % 7 === 0 ? Samples.errorSignal : Samples.successSignal
    return { ...base, id: `${base.id}-${i}`, attributes: { ...base.attributes, code: `${base.attributes.code}-${i}` } }
  }),
  meta: { pageNumber: 1, pageSize: 100, totalCount: 100 }
}
const text = JSON.stringify(page)
const decode = Schema.decodeUnknownSync(SignalsPage)

/** Median time in microseconds of one call, over `rounds` rounds of `batch` calls. */
const median = (f: () => unknown, rounds = 41, batch = 50): number => {
  for (let i = 0; i < batch * 5; i++) f() // warm-up
  const samples: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < batch; i++) f()
    samples.push(Number(process.hrtime.bigint() - start) / 1000 / batch)
  }
  samples.sort((a, b) => a - b)
  return samples[Math.floor(samples.length / 2)]!
}

// Interleave the two so that machine noise hits both alike.
const parseOnly: Array<number> = []
const parseAndDecode: Array<number> = []
for (let i = 0; i < 5; i++) {
  parseOnly.push(median(() => JSON.parse(text)))
  parseAndDecode.push(median(() => decode(JSON.parse(text))))
}
const mid = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const a = mid(parseOnly)
const b = mid(parseAndDecode)
console.log(`signals page: 100 signals, ${text.length} bytes`)
console.log(`JSON.parse alone          median ${a.toFixed(1)} µs`)
console.log(`JSON.parse + schema decode median ${b.toFixed(1)} µs`)
console.log(`ratio (decode / parse)    ${(b / a).toFixed(2)}x`)
