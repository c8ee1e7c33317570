/**
 * Bench child process: the limit of polling. Raw undici (`Pool.request`,
 * `BENCH_POLL_CONCURRENCY` in flight) sending what a vehicle entity's poll
 * sends, `GET /v3/vehicles/<id>/signals?page=1&pageSize=100` with the
 * application token and `sc-user-id`, round-robin over `TARGETS`, to the
 * simulator at `SIM_URL`: no SDK, no decoding, no limiter, no cluster, no
 * state. Takes one token (client credentials of `CLIENT_ID`,
 * `CLIENT_SECRET`), prints `ready`; on a line on stdin, polls for
 * `BENCH_POLL_SECONDS` and prints `done <requests> <seconds>`.
 */
import { createInterface } from "node:readline"
import { Pool } from "undici"

const env = (name: string, fallback = "") => process.env[name] ?? fallback
const targets: ReadonlyArray<{ vehicleId: string; userId: string }> = JSON.parse(env("TARGETS", "[]"))
const origin = new URL(env("SIM_URL")).origin
const concurrency = Number(env("BENCH_POLL_CONCURRENCY", "16"))
const pool = new Pool(origin, { connections: concurrency, pipelining: 1 })

const grant = await pool.request({
  path: "/oauth/token",
  method: "POST",
  headers: {
    "content-type": "application/x-www-form-urlencoded",
    // the token endpoint requires a User-Agent (section 4.6), which undici's request() does not send by itself
    "user-agent": "raw-poll-bench",
    authorization: `Basic ${Buffer.from(`${env("CLIENT_ID")}:${env("CLIENT_SECRET")}`).toString("base64")}`
  },
  body: "grant_type=client_credentials"
})
const { access_token } = await grant.body.json() as { access_token: string }
process.stdout.write("ready\n")
await createInterface({ input: process.stdin })[Symbol.asyncIterator]().next()

const seconds = Number(env("BENCH_POLL_SECONDS", "10"))
const start = performance.now()
const end = start + seconds * 1000
let sent = 0
const loop = async () => {
  while (performance.now() < end) {
    const target = targets[sent++ % targets.length]!
    const response = await pool.request({
      path: `/v3/vehicles/${target.vehicleId}/signals?page=1&pageSize=100`,
      method: "GET",
      headers: { authorization: `Bearer ${access_token}`, "sc-user-id": target.userId }
    })
    const text = await response.body.text()
    if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${text}`)
  }
}
await Promise.all(Array.from({ length: concurrency }, loop))
process.stdout.write(`done ${sent} ${((performance.now() - start) / 1000).toFixed(3)}\n`)
await pool.close()
