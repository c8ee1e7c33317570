// Verification + decode of one 3-signal VEHICLE_STATE delivery vs JSON.parse
// of the same body: median µs per event, the two measured in interleaved rounds.
// Run: node bench/verify.bench.ts (from packages/webhooks)
import { Redacted, Result } from "effect"
import { decodeBody } from "../src/Receiver.ts"
import { sign, verifyResult } from "../src/Signature.ts"
import { vehicleStateEvent } from "../test/samples.ts"

const secret = Redacted.make("bench-management-token")
const text = JSON.stringify(vehicleStateEvent("evt_bench"))
const bytes = new TextEncoder().encode(text)
const signature = sign(bytes, secret)

const verifyAndDecode = () => {
  if (Result.isFailure(verifyResult(bytes, signature, secret))) throw new Error("signature rejected")
  const event = decodeBody(bytes)
  if (Result.isFailure(event)) throw new Error(event.failure.message)
  return event.success
}
const verifyOnly = () => verifyResult(bytes, signature, secret)
const decodeOnly = () => decodeBody(bytes)
const parseOnly = () => JSON.parse(text)

/** Median time in microseconds of one call, over `rounds` rounds of `batch` calls. */
const median = (f: () => unknown, rounds = 41, batch = 200): number => {
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

const cases = { parseOnly, verifyAndDecode, verifyOnly, decodeOnly }
const results: Record<keyof typeof cases, Array<number>> = { parseOnly: [], verifyAndDecode: [], verifyOnly: [], decodeOnly: [] }
// Interleave them so that machine noise hits all alike.
for (let i = 0; i < 5; i++) {
  for (const name of Object.keys(cases) as Array<keyof typeof cases>) results[name].push(median(cases[name]))
}
const mid = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const parse = mid(results.parseOnly)
const full = mid(results.verifyAndDecode)
console.log(`VEHICLE_STATE event: 3 signals, ${bytes.length} bytes`)
console.log(`JSON.parse alone                       median ${parse.toFixed(2)} µs`)
console.log(`verify + decode (HMAC, UTF-8, schema)  median ${full.toFixed(2)} µs`)
console.log(`  verify alone (HMAC-SHA256)           median ${mid(results.verifyOnly).toFixed(2)} µs`)
console.log(`  decode alone (UTF-8, JSON, schema)   median ${mid(results.decodeOnly).toFixed(2)} µs`)
console.log(`ratio (verify + decode / JSON.parse)   ${(full / parse).toFixed(1)}x`)
