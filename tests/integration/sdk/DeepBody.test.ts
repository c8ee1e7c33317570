/**
 * A signal `body` is free-form JSON: an answer nesting it thousands of levels
 * deep is valid, and the Promise client gives it back (its `DateTime`-to-`Date`
 * walk has no depth limit of the call stack). The simulator on 127.0.0.1
 * behind an HTTP proxy that swaps the body of one signal for a deep one.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, ManagedRuntime, Redacted } from "effect"
import * as http from "node:http"
import type * as net from "node:net"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Client from "@connected-vehicle/sdk/Client"
import { busiestUser } from "@connected-vehicle/testing/Simulated"

const depth = 5_000

/** The arrays around the innermost value, and that value (walked without recursion). */
const unnest = (u: unknown): [number, unknown] => {
  let levels = 0
  while (Array.isArray(u)) {
    assert.strictEqual(u.length, 1)
    u = u[0]
    levels++
  }
  return [levels, u]
}

let simRuntime: ManagedRuntime.ManagedRuntime<Simulator.Simulator, never>
let sim: Simulator.Simulator["Service"]
let server: http.Server
let origin: string

beforeAll(async () => {
  simRuntime = ManagedRuntime.make(Simulator.layer({ port: 0 }))
  sim = await simRuntime.runPromise(Effect.service(Simulator.Simulator))
  // forwards every request; a single signal's answer gets `body.deep`, `depth` arrays deep
  server = http.createServer(async (req, res) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && !["host", "connection", "content-length", "transfer-encoding"].includes(name)) headers.set(name, value)
    }
    const upstream = await fetch(new URL(req.url ?? "/", sim.url), {
      method: req.method ?? "GET",
      headers,
      ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) })
    })
    let body = await upstream.text()
    const json: unknown = upstream.ok && upstream.headers.get("content-type")?.includes("json") ? JSON.parse(body) : undefined
    const data = (json as { data?: { attributes?: { body?: Record<string, unknown> } } } | undefined)?.data
    if (data?.attributes?.body !== undefined && !Array.isArray(data)) {
      const marker = "\"__deep__\""
      data.attributes.body = { ...data.attributes.body, deep: "__deep__" }
      body = JSON.stringify(json).replace(marker, "[".repeat(depth) + "\"core\"" + "]".repeat(depth))
    }
    const out: Record<string, string> = {}
    upstream.headers.forEach((value, name) => {
      if (name !== "content-length" && name !== "transfer-encoding" && name !== "content-encoding") out[name] = value
    })
    res.writeHead(upstream.status, out).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
}, 60_000)

afterAll(async () => {
  server?.closeAllConnections()
  await new Promise<void>((resolve) => server === undefined ? resolve() : server.close(() => resolve()))
  await simRuntime?.dispose()
}, 60_000)

describe("deeply nested answers", () => {
  it(`signals.get with a body ${depth} arrays deep resolves with the body, its dates as Dates`, async () => {
    await using client = Client.createClient({ clientId: sim.clientId, clientSecret: Redacted.value(sim.clientSecret), origin })
    const userId = busiestUser(sim.data)
    const vehicleId = sim.data.vehiclesOf(userId)[0]!
    const target = { vehicleId, userId: sim.data.connectionOf(vehicleId)!.userId }
    const code = (await client.v3.signals.list({ ...target, pageSize: 1 })).data[0]!.attributes.code
    const signal = await client.v3.signals.get({ ...target, code })
    assert.deepStrictEqual(unnest(signal.data.attributes.body["deep"]), [depth, "core"])
    assert.instanceOf(signal.data.meta.retrievedAt, Date)
  })
})
