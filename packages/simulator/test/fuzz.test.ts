/**
 * Thousands of random requests (seeded, loopback only, bounded in count and
 * time): every answer is a spec body, none is a 5xx, the server survives.
 */
import { OAuthErrorBody } from "@connected-vehicle/schema/OAuth"
import { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { Agent, request } from "node:http"
import { connect } from "node:net"
import { prng } from "../src/Data.ts"
import { layer, Simulator } from "../src/Simulator.ts"
import { appToken, userTokens } from "./helpers.ts"

const REQUESTS = 4000
const CONCURRENCY = 8

const isEnvelope = Schema.is(ErrorEnvelope)
const isOAuth = Schema.is(OAuthErrorBody)

interface Raw {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly body: string
}

const send = (
  agent: Agent,
  url: URL,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
  chunked = false
) =>
  new Promise<Raw>((resolve, reject) => {
    // without a content-length Node's client sends the body with Transfer-Encoding: chunked
    const sized = body === undefined || chunked ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) }
    const req = request({ agent, host: url.hostname, port: url.port, method, path, headers: sized }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.setTimeout(10_000, () => req.destroy(new Error(`timeout ${method} ${path}`)))
    if (body !== undefined && body !== "") req.write(body)
    req.end()
  })

describe("fuzz", () => {
  it.live(`${REQUESTS} random requests get spec answers and no 5xx`, () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const app = yield* appToken
      const user = (yield* userTokens()).access
      const random = prng(20260826)
      const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(random() * xs.length)]!
      const chance = (p: number) => random() < p
      const vehicle = sim.data.vehicleIds[0]!
      const owner = sim.data.connectionOf(vehicle)!.userId
      const junk = () => {
        const alphabet = "abcXYZ019-_.~%:@!$&'()*+,;=[]{}|^`\"<>\\/é€😀"
        let s = ""
        const n = Math.floor(random() * 12)
        for (let i = 0; i < n; i++) s += pick([...alphabet])
        return s
      }
      const segment = () =>
        pick([
          "v3", "v2.0", "oauth", "vehicles", vehicle, "signals", "connections", "subscriptions", "webhooks",
          "compatible-vehicles", "token", "authorize", "odometer", "location", "vin", "engine", "oil", "tires",
          "pressure", "service", "history", "batch", "docs", "openapi.json", sim.data.webhooks[0]!.id, "",
          "odometer-traveleddistance", "..", ".", "%2e%2e", "%00", "%E0%A4%A", "%ZZ", "x".repeat(300), junk(), junk()
        ])
      const path = () => {
        const templates = [
          () => `/v3/vehicles/${pick([vehicle, junk()])}/signals${chance(0.3) ? "/" + segment() : ""}`,
          () => `/v3/${pick(["connections", "subscriptions", "webhooks", "compatible-vehicles"])}${chance(0.3) ? "/" + segment() : ""}`,
          () => `/v2.0/vehicles${chance(0.7) ? `/${pick([vehicle, junk()])}/${pick(["odometer", "location", "vin", "engine/oil", "tires/pressure", "service/history", "batch", segment()])}` : ""}`,
          () => `/oauth/${pick(["token", "authorize", segment()])}`,
          () => "/" + Array.from({ length: 1 + Math.floor(random() * 5) }, segment).join("/")
        ]
        return pick(templates)()
      }
      const query = () => {
        if (chance(0.3)) return ""
        const names = ["page", "pageSize", "limit", "offset", "filter[mode]", "filter[userId]", "filter[vehicleId]", "filter[webhookId]",
          "filter[name]", "filter[callbackUri]", "filter[isEnabled]", "filter[autoSubscribe]", "filter[region]", "filter[make]",
          "filter[powertrainType]", "filter[userExternalId]", "response_type", "client_id", "redirect_uri", "scope", "state", "mode",
          "login_hint", "filter[", "]", "", junk()]
        const values = ["1", "0", "-1", "100", "101", "1e3", "NaN", "true", "false", "live", "simulated", "US", "EV", "ICE", "code",
          sim.clientId, "https://app.example/cb", "read_vin", owner, vehicle, "", junk(), "%", "%ZZ", "a&b=c"]
        const n = 1 + Math.floor(random() * 4)
        return "?" + Array.from({ length: n }, () => `${encodeURIComponent(pick(names))}=${chance(0.8) ? encodeURIComponent(pick(values)) : pick(values).replace(/[^\x21-\x7e]/g, "")}`).join("&")
      }
      const headers = () => {
        const h: Record<string, string> = {}
        if (chance(0.7)) {
          h["authorization"] = pick([`Bearer ${app}`, `Bearer ${user}`, "Bearer", "Bearer x", `Basic ${Buffer.from(`${sim.clientId}:demo-client-secret`).toString("base64")}`, "Basic !!!", "Digest x", junk().replace(/[^\x21-\x7e]/g, "")])
        }
        if (chance(0.5)) h["sc-user-id"] = pick([owner, junk().replace(/[^\x21-\x7e]/g, ""), ""])
        if (chance(0.3)) h["sc-unit-system"] = pick(["metric", "imperial", "IMPERIAL", ""])
        if (chance(0.5)) h["content-type"] = pick(["application/json", "application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x", "application/json; charset=utf-8", "garbage"])
        return h
      }
      const body = () =>
        pick([
          undefined,
          "",
          "{",
          "null",
          "[]",
          JSON.stringify({ requests: [{ path: "/odometer" }, { path: junk() }] }),
          JSON.stringify({ requests: "no" }),
          "grant_type=client_credentials",
          "grant_type=authorization_code&code=x&redirect_uri=y",
          "grant_type=refresh_token&refresh_token=" + encodeURIComponent(junk()),
          "grant_type=" + encodeURIComponent(junk()),
          "%%%&&&==",
          junk().repeat(20),
          "\u0000\u0001\u0002"
        ])

      const url = new URL(sim.url)
      const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
      const failures: Array<string> = []
      let count = 0
      const started = performance.now()
      const one = async () => {
        const method = pick(["GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"])
        // a request target the client can send: bytes outside visible ASCII percent-encoded
        const p = (path() + query()).replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c))
        const h = headers()
        const b = method === "GET" || method === "HEAD" ? undefined : body()
        // half the bodies are chunked, on keep-alive connections (requests answered early drain them)
        const reply = await send(agent, url, method, p, h, b, b !== undefined && chance(0.5)).catch((e) => {
          e.where = `${method} ${p} ${JSON.stringify(h)} ${JSON.stringify(b)}`
          throw e
        })
        count++
        const where = `${method} ${p} -> ${reply.status} ${reply.body.slice(0, 200)}`
        if (reply.status >= 500) failures.push(`5xx: ${where}`)
        if (method === "HEAD" || reply.status === 302 || reply.status === 204) return
        const isDocs = reply.headers["content-type"]?.toString().startsWith("text/html")
        if (isDocs) return
        let json: unknown
        try {
          json = JSON.parse(reply.body)
        } catch {
          failures.push(`not JSON: ${where}`)
          return
        }
        if (reply.status >= 400) {
          const pathname = p.split("?")[0]!
          const oauth = pathname.startsWith("/oauth/") || pathname === "/oauth"
          if (oauth ? !isOAuth(json) : !isEnvelope(json)) failures.push(`bad error body: ${where}`)
          if (!oauth && isEnvelope(json) && (json as any).errors[0].status !== String(reply.status)) failures.push(`status mismatch: ${where}`)
        }
      }
      yield* Effect.promise(async () => {
        let next = 0
        const worker = async () => {
          while (next < REQUESTS && performance.now() - started < 45_000) {
            next++
            await one().catch((e) => failures.push(`transport: ${String(e)} ${(e as any).where ?? ""}`))
          }
        }
        await Promise.all(Array.from({ length: CONCURRENCY }, worker))
      })
      agent.destroy()
      // every request reached the application and was answered
      assert.deepStrictEqual((yield* sim.requests).filter((e) => e.status === 0 || e.status >= 500), [])
      assert.deepStrictEqual(failures.slice(0, 20), [])
      assert.isAtLeast(count, 1000)
      // still serving
      const after = yield* Effect.promise(() => fetch(`${sim.url}/v3/compatible-vehicles`))
      assert.strictEqual(after.status, 200)
    }).pipe(Effect.provide(Layer.mergeAll(layer({ seed: 9 }), FetchHttpClient.layer))), 60_000)
})

describe("requests Node's parser rejects", () => {
  it.live("are answered with the envelope too", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const url = new URL(sim.url)
      const raw = (bytes: string) =>
        Effect.promise(() =>
          new Promise<string>((resolve) => {
            const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes, "latin1"))
            let out = ""
            socket.on("data", (c) => out += c.toString("utf8"))
            socket.on("close", () => resolve(out))
            socket.on("error", () => resolve(out))
            socket.setTimeout(5000, () => socket.destroy())
          })
        )
      for (const bytes of ["BR{EW / HTTP/1.1\r\n\r\n", "GET /v3/connections\u00e9 HTTP/1.1\r\nhost: x\r\n\r\n", "GET / HTTP/1.1\r\nbad header\r\n\r\n"]) {
        const reply = yield* raw(bytes)
        const [head, body] = reply.split("\r\n\r\n")
        assert.match(head!, /^HTTP\/1\.1 400/)
        assert.isTrue(isEnvelope(JSON.parse(body!)), reply)
      }
      assert.strictEqual((yield* Effect.promise(() => fetch(`${sim.url}/v3/compatible-vehicles`))).status, 200)
    }).pipe(Effect.provide(layer())))
})
