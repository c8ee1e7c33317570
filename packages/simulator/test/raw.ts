/**
 * A raw HTTP/1.1 connection for the socket tests: bytes are sent exactly as
 * written (no client normalises or refuses them), and responses are parsed as
 * they arrive (Content-Length, chunked, or until close).
 */
import { connect } from "node:net"
import type { Socket } from "node:net"

export interface RawResponse {
  readonly status: number
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

export interface RawConnection {
  readonly socket: Socket
  readonly send: (bytes: string | Buffer) => void
  /** The next whole response; rejects when the connection closes first or after `timeoutMillis`. */
  readonly next: (timeoutMillis?: number) => Promise<RawResponse>
  /** Resolves when the server has closed the connection (or it was destroyed). */
  readonly closed: Promise<void>
  readonly isClosed: () => boolean
}

const parse = (buffer: Buffer, ended: boolean): { readonly response: RawResponse; readonly used: number } | undefined => {
  const headEnd = buffer.indexOf("\r\n\r\n")
  if (headEnd === -1) return undefined
  const [statusLine, ...lines] = buffer.subarray(0, headEnd).toString("latin1").split("\r\n")
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1] ?? 0)
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    if (colon !== -1) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  let at = headEnd + 4
  if (headers["content-length"] !== undefined) {
    const length = Number(headers["content-length"])
    if (buffer.length < at + length) return undefined
    return { response: { status, headers, body: buffer.subarray(at, at + length).toString("utf8") }, used: at + length }
  }
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
    const parts: Array<Buffer> = []
    for (;;) {
      const lineEnd = buffer.indexOf("\r\n", at)
      if (lineEnd === -1) return undefined
      const size = parseInt(buffer.subarray(at, lineEnd).toString("latin1"), 16)
      if (buffer.length < lineEnd + 2 + size + 2) return undefined
      if (size === 0) {
        return { response: { status, headers, body: Buffer.concat(parts).toString("utf8") }, used: lineEnd + 4 }
      }
      parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size))
      at = lineEnd + 2 + size + 2
    }
  }
  if (status === 204 || status === 304 || (status >= 100 && status < 200)) return { response: { status, headers, body: "" }, used: at }
  return ended ? { response: { status, headers, body: buffer.subarray(at).toString("utf8") }, used: buffer.length } : undefined
}

/**
 * Opens a connection to `origin` (`http://127.0.0.1:PORT`). With
 * `allowHalfOpen`, the client keeps its side open after the server's FIN,
 * as a client waiting for an answer would.
 */
export const openRaw = (origin: string, options: { readonly allowHalfOpen?: boolean } = {}): Promise<RawConnection> =>
  new Promise((resolve, reject) => {
    const url = new URL(origin)
    const socket = connect({ host: url.hostname, port: Number(url.port), allowHalfOpen: options.allowHalfOpen ?? false })
    let buffer = Buffer.alloc(0)
    let ended = false
    let closed = false
    const parsed: Array<RawResponse> = []
    const waiters: Array<() => void> = []
    const wake = () => {
      for (;;) {
        const next = parse(buffer, ended)
        if (next === undefined) break
        parsed.push(next.response)
        buffer = buffer.subarray(next.used)
      }
      for (const waiter of waiters.splice(0)) waiter()
    }
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk])
      wake()
    })
    socket.on("end", () => {
      ended = true
      wake()
    })
    socket.on("error", () => {})
    const closedPromise = new Promise<void>((done) =>
      socket.on("close", () => {
        closed = true
        ended = true
        wake()
        done()
      })
    )
    socket.once("connect", () =>
      resolve({
        socket,
        send: (bytes) => {
          if (!socket.destroyed && socket.writable) socket.write(bytes)
        },
        next: (timeoutMillis = 30_000) =>
          new Promise<RawResponse>((ok, fail) => {
            const timer = setTimeout(() => fail(new Error("no response in time")), timeoutMillis)
            const check = () => {
              const response = parsed.shift()
              if (response !== undefined) {
                clearTimeout(timer)
                ok(response)
              } else if (ended) {
                clearTimeout(timer)
                fail(new Error("the connection closed before a response"))
              } else {
                waiters.push(check)
              }
            }
            check()
          }),
        closed: closedPromise,
        isClosed: () => closed
      })
    )
    socket.once("error", reject)
  })

/** A request as bytes: request line, headers (`host` first unless given as null), blank line, body. */
export const rawRequest = (
  method: string,
  target: string,
  headers: Record<string, string | null> = {},
  body: string | Buffer = ""
): Buffer => {
  const all: Record<string, string | null> = { host: "127.0.0.1", ...headers }
  let head = `${method} ${target} HTTP/1.1\r\n`
  for (const [name, value] of Object.entries(all)) if (value !== null) head += `${name}: ${value}\r\n`
  return Buffer.concat([Buffer.from(head + "\r\n", "latin1"), typeof body === "string" ? Buffer.from(body) : body])
}

/** A chunked body of `size` bytes in chunks of at most 64 KiB. */
export const chunked = (size: number): Buffer => {
  const parts: Array<Buffer> = []
  for (let left = size; left > 0; left -= 65_536) {
    const n = Math.min(65_536, left)
    parts.push(Buffer.from(`${n.toString(16)}\r\n`), Buffer.alloc(n, 97), Buffer.from("\r\n"))
  }
  parts.push(Buffer.from("0\r\n\r\n"))
  return Buffer.concat(parts)
}
