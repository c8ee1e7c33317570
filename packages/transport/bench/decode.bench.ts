/**
 * Decode cost of a response body: `JSON.parse` + the transport's body decoder
 * (`src/internal/decoder.ts`) vs `JSON.parse` alone, with Effect's own
 * `Schema.decodeUnknownExit` reported beside it. Each body is decoded with the
 * contract's JSON codec of its schema (`Schema.toCodecJson`, as
 * `HttpApiEndpoint` stores it and the transport decodes it).
 *
 * Bodies: a 100-signal list page (`SignalsPage`, three distinct timestamps
 * per signal, one signal in seven an `ERROR` one) and one signal
 * (`SignalResponse`). Target: the 100-signal page at most 2.0x `JSON.parse`
 * alone; the single signal is reported against the same figure.
 *
 *   pnpm --filter @connected-vehicle/transport exec node bench/decode.bench.ts
 */
import { Exit, Schema } from "effect"
import { SignalResponse, SignalsPage } from "@connected-vehicle/schema/Signal"
import { decodeUnknownExit } from "../src/internal/decoder.ts"
import * as Samples from "../test/signals.ts"

const TARGET = 2.0

// distinct instants, as a real page has them: each signal read at its own time
const iso = (millis: number) => new Date(millis).toISOString()
const base = Date.parse("2025-08-26T10:00:00.000Z")
const page = {
  ...Samples.signalsPage,
  data: Array.from({ length: 100 }, (_, i) => {
    const sample = i % 7 === 0 ? Samples.errorSignal : Samples.successSignal
    return {
      ...sample,
      id: `${sample.id}-${i}`,
      attributes: { ...sample.attributes, code: `${sample.attributes.code}-${i}` },
      meta: { retrievedAt: iso(base + i * 1_000 + 17), oemUpdatedAt: iso(base - i * 60_000 - 311), ingestedAt: iso(base + i * 1_000 + 5) }
    }
  }),
  meta: { pageNumber: 1, pageSize: 100, totalCount: 100 }
}
const pageText = JSON.stringify(page)
const signalText = JSON.stringify({ ...Samples.signalResponse, data: page.data[1] })

// the contract's JSON codec of each body, as the HttpApi hands it to the transport
const pageCodec = Schema.toCodecJson(SignalsPage)
const signalCodec = Schema.toCodecJson(SignalResponse)
const decodePage = decodeUnknownExit(pageCodec)
const decodeSignal = decodeUnknownExit(signalCodec)
const effectPage = Schema.decodeUnknownExit(pageCodec)
const effectSignal = Schema.decodeUnknownExit(signalCodec)

/** Median time in microseconds of one call, over `rounds` rounds of `batch` calls. */
const median = (f: () => unknown, batch: number, rounds = 41): number => {
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
const mid = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const compare = (
  name: string,
  text: string,
  decode: (u: unknown) => Exit.Exit<unknown, unknown>,
  effect: (u: unknown) => Exit.Exit<unknown, unknown>,
  batch: number
) => {
  if (!Exit.isSuccess(decode(JSON.parse(text))) || !Exit.isSuccess(effect(JSON.parse(text)))) throw new Error(`${name} does not decode`)
  // interleaved, so that machine noise hits all alike
  const parseOnly: Array<number> = []
  const parseAndDecode: Array<number> = []
  const parseAndEffect: Array<number> = []
  for (let i = 0; i < 5; i++) {
    parseOnly.push(median(() => JSON.parse(text), batch))
    parseAndDecode.push(median(() => decode(JSON.parse(text)), batch))
    parseAndEffect.push(median(() => effect(JSON.parse(text)), batch))
  }
  const a = mid(parseOnly)
  const b = mid(parseAndDecode)
  const c = mid(parseAndEffect)
  const ratio = b / a
  console.log(`${name}, ${text.length} bytes`)
  console.log(`  JSON.parse alone                         median ${a.toFixed(1).padStart(7)} µs`)
  console.log(`  JSON.parse + the transport's decoder     median ${b.toFixed(1).padStart(7)} µs`)
  console.log(`  JSON.parse + Effect's decoder (reported) median ${c.toFixed(1).padStart(7)} µs (${(c / a).toFixed(2)}x)`)
  console.log(`  ratio (decode / parse)      ${ratio.toFixed(2)}x (target <= ${TARGET.toFixed(1)}x: ${ratio <= TARGET ? "met" : "NOT met"})`)
}

console.log("the transport's body decoder against Effect's decoder")
compare("signals page: 100 signals", pageText, decodePage, effectPage, 50)
compare("one signal (SignalResponse)", signalText, decodeSignal, effectSignal, 2_000)
