/**
 * A fault-injecting HTTP proxy for the chaos runs (`run.ts`): each request
 * gets a fault drawn from its key (method, URL and how often that URL was
 * seen) and the run's seed, so that two clients sent the same calls meet the
 * same faults whatever the order of their requests.
 */
import * as http from "node:http"
import type * as net from "node:net"

export const faultKinds = [
  "pass",
  "resetBeforeHead",
  "resetAfterHead",
  "cutBody",
  "stallHead",
  "stallBody",
  "drip",
  "status500",
  "status503RetryAfter",
  "status429",
  "status401",
  "wrongContentType",
  "missingContentType",
  "nonJson200",
  "truncatedJson200",
  "hugeDeclared",
  "hugeChunked",
  "oddHeaders",
  "http10",
  "connectionClose",
  "redirectStalled",
  "garbageAfter",
  "invalidGrant"
] as const

export type FaultKind = typeof faultKinds[number]

/** The faults of the token endpoint (with `tokenFaults`). */
export const tokenFaultKinds: ReadonlyArray<FaultKind> = [
  "status500",
  "status429",
  "status503RetryAfter",
  "cutBody",
  "nonJson200",
  "truncatedJson200",
  "invalidGrant",
  "resetBeforeHead",
  "resetAfterHead",
  "stallHead",
  "stallBody",
  "status401"
]

/** One request of the token endpoint: its grant, the refresh token it spent, its fault and what the upstream said. */
export interface Grant {
  readonly grant: string
  readonly refreshToken: string | undefined
  readonly kind: FaultKind
  /** The upstream's status, when the request reached it. */
  status: number | undefined
  /** Whether the upstream's answer reached the client whole. */
  delivered: boolean
}

export const retryAfters = ["0", "1", "2", "-1", "1.5", "soon", "99999999999", "Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 01 Jan 2100 00:00:00 GMT", ""]

/** A 32-bit hash of a string (FNV-1a). */
const hash = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

export interface Proxy {
  readonly origin: string
  /** Faults by kind so far. */
  readonly counts: Map<string, number>
  /** Sockets of the proxy's server still open. */
  readonly open: () => number
  /** Requests answered with no end (stalls) whose socket is still open. */
  readonly stalledOpen: () => number
  /** What each stalled exchange still open was. */
  readonly stalledWhat: () => Array<string>
  /** Tokens that crossed the proxy (bearer tokens, token responses' access and refresh tokens). */
  readonly secrets: Set<string>
  /** Requests sent again sooner than the valid `Retry-After` their URL was last answered with. */
  readonly early: Array<string>
  enabled: boolean
  /** Faults on the token endpoint (`tokenKinds`) too. */
  tokenFaults: boolean
  /** The token endpoint's requests, in order. */
  readonly grants: Array<Grant>
  /** The most token requests of one grant type in flight at once. */
  readonly maxInFlight: Map<string, number>
  /** The bearer tokens answered with an injected 401. */
  readonly rejected: Array<string>
  readonly close: () => Promise<void>
}

export interface ProxyOptions {
  readonly upstream: string
  readonly seed: number
  /** Probability that a request is faulty (default 0.6). */
  readonly rate?: number
  readonly kinds?: ReadonlyArray<FaultKind>
  /** Faults on the token endpoint too (default false). */
  readonly tokenFaults?: boolean
  readonly tokenKinds?: ReadonlyArray<FaultKind>
  /** Probability that a token request is faulty (default `rate`). */
  readonly tokenRate?: number
}

const envelope = (status: number, code: string) =>
  JSON.stringify({
    errors: [],
    type: status === 401 ? "AUTHENTICATION" : status === 429 ? "RATE_LIMIT" : "SERVER",
    code,
    title: code,
    detail: `injected ${status}`,
    resolution: "RETRY_LATER",
    statusCode: status
  })

export const startProxy = async (options: ProxyOptions): Promise<Proxy> => {
  const upstream = new URL(options.upstream)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
  const seen = new Map<string, number>()
  const counts = new Map<string, number>()
  const sockets = new Set<net.Socket>()
  const stalled = new Map<net.Socket, string>()
  const secrets = new Set<string>()
  const early: Array<string> = []
  const grants: Array<Grant> = []
  const inFlight = new Map<string, number>()
  const maxInFlight = new Map<string, number>()
  const rejected: Array<string> = []
  /** By URL: when a valid `Retry-After` was sent, and its delay in ms. */
  const waits = new Map<string, { at: number; ms: number; value: string }>()
  const validDelay = (value: string): number | undefined => {
    if (/^\d+$/.test(value)) return Number(value) * 1000
    const date = Date.parse(value)
    return /GMT$/.test(value) && !Number.isNaN(date) ? Math.max(0, date - Date.now()) : undefined
  }
  const noteRetryAfter = (req: http.IncomingMessage, value: string) => {
    const ms = validDelay(value)
    // only the URLs of one call each (a list's page past what streams reach)
    if (!/\/signals\?page=(\d\d+)/.test(req.url!)) return
    if (ms !== undefined) waits.set(req.url!, { at: Date.now(), ms, value })
  }
  const rate = options.rate ?? 0.6
  const kinds = options.kinds ?? faultKinds.filter((k) => k !== "pass" && k !== "invalidGrant")

  const pick = (req: http.IncomingMessage): { kind: FaultKind; r: number } => {
    const key = `${req.method} ${req.url}`
    const n = (seen.get(key) ?? 0) + 1
    seen.set(key, n)
    const h = hash(`${options.seed}|${key}|${n}`)
    const r = hash(`${h}`) / 2 ** 32
    if (!proxy.enabled) return { kind: "pass", r }
    if (req.url?.includes("/oauth/token")) {
      if (!proxy.tokenFaults || h / 2 ** 32 >= (options.tokenRate ?? rate)) return { kind: "pass", r }
      const tokenKinds = options.tokenKinds ?? tokenFaultKinds
      return { kind: tokenKinds[h % tokenKinds.length]!, r }
    }
    if (h / 2 ** 32 >= rate) return { kind: "pass", r }
    return { kind: kinds[h % kinds.length]!, r }
  }

  /** The upstream's answer to `req` (its body whole). */
  const forward = (req: http.IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const headers = { ...req.headers, host: upstream.host }
      const out = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          if (req.url?.includes("token")) {
            try {
              const json = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>
              for (const k of ["access_token", "refresh_token"]) if (typeof json[k] === "string") secrets.add(json[k])
            } catch {
              // not a token
            }
          }
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) })
        })
        res.on("error", reject)
      })
      out.on("error", reject)
      out.end(body)
    })

  const raw = (socket: net.Socket, text: string) => socket.write(text)
  const stall = (socket: net.Socket, what = "") => {
    // a client that gave up while the simulator answered has closed it already
    // (its "close" came before this listener): nothing is left open
    if (socket.destroyed) return
    stalled.set(socket, what)
    socket.on("close", () => stalled.delete(socket))
  }

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => {
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1]
    if (bearer !== undefined) secrets.add(bearer)
    const wait = waits.get(req.url!)
    if (wait !== undefined) {
      waits.delete(req.url!)
      const gap = Date.now() - wait.at
      if (gap < wait.ms - 50) early.push(`${req.url} again after ${gap} ms, Retry-After: ${wait.value}`)
    }
    const { kind, r } = pick(req)
    counts.set(kind, (counts.get(kind) ?? 0) + 1)
    const socket = req.socket
    let grant: Grant | undefined
    if (req.url?.includes("/oauth/token")) {
      const form = new URLSearchParams(body.toString("utf8"))
      grant = { grant: form.get("grant_type") ?? "?", refreshToken: form.get("refresh_token") ?? undefined, kind, status: undefined, delivered: false }
      grants.push(grant)
      const name = grant.grant
      const now = (inFlight.get(name) ?? 0) + 1
      inFlight.set(name, now)
      maxInFlight.set(name, Math.max(now, maxInFlight.get(name) ?? 0))
      res.once("close", () => inFlight.set(name, inFlight.get(name)! - 1))
    }
    if (kind === "status401" && bearer !== undefined) rejected.push(bearer)
    switch (kind) {
      case "invalidGrant":
        res.writeHead(400, { "content-type": "application/json" })
        return res.end(JSON.stringify({ error: "invalid_grant", error_description: "injected" }))
      case "resetBeforeHead":
        return socket.resetAndDestroy()
      case "stallHead":
        return stall(socket, `${kind} ${req.url}`)
      case "status500":
        res.writeHead(r < 0.5 ? 500 : 502, { "content-type": "application/json" })
        return res.end(r < 0.25 ? "oops" : envelope(500, "INTERNAL"))
      case "status503RetryAfter": {
        const ra = retryAfters[Math.floor(r * retryAfters.length)]!
        noteRetryAfter(req, ra)
        res.writeHead(503, { "content-type": "application/json", "retry-after": ra })
        return res.end(envelope(503, "UNAVAILABLE"))
      }
      case "status429": {
        const ra = retryAfters[Math.floor(r * retryAfters.length)]!
        if (r < 0.8) noteRetryAfter(req, ra)
        res.writeHead(429, r < 0.8 ? { "content-type": "application/json", "retry-after": ra } : { "content-type": "application/json" })
        return res.end(envelope(429, "RATE_LIMITED"))
      }
      case "status401":
        res.writeHead(401, { "content-type": "application/json" })
        return res.end(envelope(401, "UNAUTHORIZED"))
      case "hugeDeclared":
        raw(socket, `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${32 * 1024 * 1024}\r\n\r\n{"data":[`)
        return stall(socket, `${kind} ${req.url}`)
      case "hugeChunked": {
        raw(socket, `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`)
        const chunk = Buffer.alloc(1024 * 1024, 0x20)
        let sent = 0
        const next = () => {
          if (socket.destroyed) return
          if (sent++ >= 20) return socket.end("0\r\n\r\n")
          socket.write(`${chunk.length.toString(16)}\r\n`)
          socket.write(chunk)
          if (socket.write("\r\n")) setImmediate(next)
          else socket.once("drain", next)
        }
        return next()
      }
      case "redirectStalled":
        raw(socket, `HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:1/elsewhere\r\ncontent-length: 100\r\n\r\nmoved`)
        return stall(socket, `${kind} ${req.url}`)
      default:
        break
    }
    let answer: Awaited<ReturnType<typeof forward>>
    try {
      answer = await forward(req, body)
    } catch {
      return socket.destroy()
    }
    if (grant !== undefined) {
      grant.status = answer.status
      grant.delivered = ["pass", "drip", "oddHeaders", "http10", "connectionClose", "missingContentType", "garbageAfter"].includes(kind)
    }
    const headers: Record<string, string | Array<string>> = {}
    for (const [k, v] of Object.entries(answer.headers)) {
      if (v !== undefined && k !== "connection" && k !== "keep-alive" && k !== "transfer-encoding" && k !== "content-length") headers[k] = v
    }
    const payload = answer.body
    switch (kind) {
      case "resetAfterHead":
        raw(socket, `HTTP/1.1 ${answer.status} OK\r\ncontent-type: application/json\r\ncontent-length: ${payload.length + 10}\r\n\r\n`)
        socket.write(payload.subarray(0, payload.length >> 1))
        return setTimeout(() => socket.resetAndDestroy(), 5)
      case "cutBody":
        raw(socket, `HTTP/1.1 ${answer.status} OK\r\ncontent-type: application/json\r\ncontent-length: ${payload.length + 10}\r\n\r\n`)
        socket.write(payload.subarray(0, payload.length >> 1))
        return socket.end()
      case "stallBody":
        raw(socket, `HTTP/1.1 ${answer.status} OK\r\ncontent-type: application/json\r\ncontent-length: ${payload.length}\r\n\r\n`)
        socket.write(payload.subarray(0, payload.length >> 1))
        return stall(socket, `${kind} ${req.url}`)
      case "drip": {
        res.writeHead(answer.status, { ...headers, "content-length": String(payload.length) })
        let i = 0
        const step = Math.max(1, Math.ceil(payload.length / 20))
        const timer = setInterval(() => {
          if (socket.destroyed) return clearInterval(timer)
          res.write(payload.subarray(i, i + step))
          i += step
          if (i >= payload.length) {
            clearInterval(timer)
            res.end()
          }
        }, 10 + Math.floor(r * 40))
        return
      }
      case "wrongContentType":
        res.writeHead(answer.status, { ...headers, "content-type": "text/html; charset=utf-8" })
        return res.end(payload)
      case "missingContentType": {
        const { "content-type": _, ...rest } = headers
        res.writeHead(answer.status, rest)
        res.removeHeader("content-type")
        return res.end(payload)
      }
      case "nonJson200":
        res.writeHead(200, { "content-type": "application/json" })
        return res.end("<html>gateway</html>")
      case "truncatedJson200":
        res.writeHead(200, { "content-type": "application/json" })
        return res.end(payload.subarray(0, Math.max(1, payload.length >> 1)))
      case "oddHeaders":
        res.writeHead(answer.status, [
          ...Object.entries(headers).flatMap(([k, v]) => Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]]),
          ["X-Request-Id", "dup-1"],
          ["x-request-id", "dup-2"],
          ["content-type", "application/json"],
          ["Retry-After", "junk"],
          ["x-empty", ""],
          ["set-cookie", "a=1"],
          ["set-cookie", "b=2"]
        ].flat() as Array<string>)
        return res.end(payload)
      case "http10":
        raw(socket, `HTTP/1.0 ${answer.status} OK\r\ncontent-type: application/json\r\n\r\n`)
        socket.write(payload)
        return socket.end()
      case "connectionClose":
        res.writeHead(answer.status, { ...headers, connection: "close" })
        return res.end(payload)
      case "garbageAfter":
        raw(socket, `HTTP/1.1 ${answer.status} OK\r\ncontent-type: application/json\r\ncontent-length: ${payload.length}\r\n\r\n`)
        socket.write(payload)
        socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}garbage")
        return socket.end()
      default:
        res.writeHead(answer.status, headers)
        return res.end(payload)
    }
  }

  const server = http.createServer({ keepAliveTimeout: 5_000, requestTimeout: 0, headersTimeout: 0 }, (req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => void handle(req, res, Buffer.concat(chunks)).catch(() => req.socket.destroy()))
  })
  server.on("connection", (socket: net.Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    socket.on("error", () => {})
  })
  server.on("clientError", (_e, socket) => socket.destroy())
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as net.AddressInfo
  const proxy: Proxy = {
    origin: `http://127.0.0.1:${port}`,
    counts,
    open: () => sockets.size,
    stalledOpen: () => stalled.size,
    stalledWhat: () => [...stalled.values()],
    secrets,
    early,
    enabled: false,
    tokenFaults: options.tokenFaults ?? false,
    grants,
    maxInFlight,
    rejected,
    close: async () => {
      for (const s of sockets) s.destroy()
      agent.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
  return proxy
}
