import { readFileSync } from "node:fs"
import { SignalResponse } from "@connected-vehicle/schema/Signal"
import * as D from "../../packages/transport/src/internal/decoder.ts"
const text = readFileSync("/tmp/body-signal.json", "utf8")
const fast = D.decodeUnknownExit(SignalResponse)
const time = (name: string, f: () => unknown, n = 200000) => {
  for (let i = 0; i < 20000; i++) f()
  const t = performance.now()
  for (let i = 0; i < n; i++) f()
  console.log(name, ((performance.now() - t) / n * 1000).toFixed(2), "µs")
}
const json = JSON.parse(text)
console.log((fast(json) as any)._tag)
for (let k = 0; k < 3; k++) time("fast decode", () => fast(json))
