/**
 * Makes every answer of a Node server the simulator's own, including the
 * ones Node gives outside the application: upgrade requests served as
 * ordinary ones, `CONNECT` refused, and requests Node's HTTP parser rejects
 * answered with the section 7 envelope and a request id.
 *
 * @internal
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import { makeOAuthErrorBody } from "@connected-vehicle/schema/OAuth"
import type { Origins } from "../Env.ts"
import { envelope, originFor } from "../Env.ts"
import type { State } from "../State.ts"
import { isDeprecatedPath } from "../Sunset.ts"
import { deprecationHeaders } from "./sunset.ts"
import { REQUEST_ID_HEADER, requestIdFor, SC_REQUEST_ID_HEADER } from "./headers.ts"
import { routePath } from "./paths.ts"
import { isOAuthPath, oauthErrorOfStatus } from "./responses.ts"

/** After this long a socket the simulator answered outside the HTTP parser is destroyed, whatever the client does. */
const CLOSE_GRACE_MILLIS = 1_000

/** How long a rejected request's answer waits for the answers to the requests before it on the connection. */
const PENDING_ANSWERS_MILLIS = 10_000

const ignoreError = () => {}

/**
 * The request id and log entry of each request the application is answering,
 * by Node's request object: a request whose body then fails (a bad chunk, a
 * timeout) is answered here with that same id, and its log entry gets the status.
 */
const answering = new WeakMap<object, { readonly requestId: string; readonly entry: { status: number } }>()

/** Notes the request id and log entry of a request the application answers (its `source`: Node's request). */
export const trackAnswer = (source: unknown, requestId: string, entry: { status: number }): void => {
  if (typeof source === "object" && source !== null) answering.set(source, { requestId, entry })
}

/**
 * Ends a socket with a whole response written by hand, and destroys it after
 * a grace period (the client gets to read it first): the section 7 envelope,
 * or under `/oauth` (`path`) the OAuth body with the envelope's `errors`; no
 * body to a `HEAD` (its length said all the same).
 */
const endRaw = (
  socket: Duplex,
  status: number,
  reason: string,
  detail: string,
  requestId: string,
  headers = "",
  request?: { readonly path: string | undefined; readonly method: string | undefined }
) => {
  const answer = envelope(status, detail, { requestId })
  const body = JSON.stringify(
    request?.path !== undefined && isOAuthPath(request.path)
      ? { ...makeOAuthErrorBody(status, oauthErrorOfStatus(status), detail), errors: answer.errors }
      : answer
  )
  if (!socket.listeners("error").includes(ignoreError)) socket.on("error", ignoreError)
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `${REQUEST_ID_HEADER}: ${requestId}\r\n${SC_REQUEST_ID_HEADER}: ${requestId}\r\n${headers}connection: close\r\n\r\n${request?.method === "HEAD" ? "" : body}`
  )
  const timer = setTimeout(() => socket.destroy(), CLOSE_GRACE_MILLIS)
  timer.unref()
  socket.once("close", () => clearTimeout(timer))
}

/**
 * The `Deprecation` / `Link` (and, with a removal date, `Sunset`) header lines
 * of an answer written by hand: none unless `path` is a deprecated v2.0 path
 * (not the vehicle list), or is not known.
 */
const deprecationLines = (origins: Origins, path: string | undefined, sunset: number | undefined): string => {
  if (path === undefined || !isDeprecatedPath(path)) return ""
  let lines = ""
  for (const [name, value] of Object.entries(deprecationHeaders(originFor(origins, path), sunset))) lines += `${name}: ${value}\r\n`
  return lines
}

/**
 * What the server's public `request` event tells of each connection: the
 * last request whose head was parsed, and the responses not yet finished,
 * oldest first (Node writes a connection's responses in the order of its
 * requests: the first is the one on the wire).
 */
interface Connection {
  last: IncomingMessage | undefined
  readonly unfinished: Set<ServerResponse>
}

/** Follows the connections of a server through its `request` event (listening first, before any answer can start). */
const follow = (server: Server) => {
  const connections = new WeakMap<Duplex, Connection>()
  server.prependListener("request", (request: IncomingMessage, response: ServerResponse) => {
    let connection = connections.get(request.socket)
    if (connection === undefined) {
      connection = { last: undefined, unfinished: new Set() }
      connections.set(request.socket, connection)
    }
    const { unfinished } = connection
    connection.last = request
    if (response.writableFinished) return
    unfinished.add(response)
    const done = () => unfinished.delete(response)
    response.once("finish", done)
    response.once("close", done)
  })
  return {
    /** The request of the connection whose head was parsed and whose body has not ended, if any. */
    incomplete: (socket: Duplex): IncomingMessage | undefined => {
      const last = connections.get(socket)?.last
      return last !== undefined && !last.complete ? last : undefined
    },
    /** The response on the wire of the connection: the oldest one not finished, if any. */
    pending: (socket: Duplex): ServerResponse | undefined => {
      const unfinished = connections.get(socket)?.unfinished
      if (unfinished === undefined) return undefined
      for (const response of unfinished) return response
      return undefined
    }
  }
}

type Follow = ReturnType<typeof follow>

const requestLine = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) ([^\s]+) HTTP\/\d\.\d\r?\n/

/**
 * The method and target of the request a client error belongs to, when they
 * can be told for sure: the request whose head was parsed and whose body had
 * not ended (a bad chunk, a timeout during the body), else the request line
 * at the start of the bytes Node hands over with the error (`rawPacket`),
 * provided no other request's head ends before the error. Otherwise
 * undefined (a head split over several packets: its line is not in the last).
 */
const failingRequestOf = (
  error: NodeJS.ErrnoException,
  incoming: IncomingMessage | undefined
): { readonly method: string | undefined; readonly target: string } | undefined => {
  if (incoming !== undefined && typeof incoming.url === "string") return { method: incoming.method, target: incoming.url }
  const { bytesParsed, rawPacket } = error as { readonly rawPacket?: unknown; readonly bytesParsed?: unknown }
  if (!Buffer.isBuffer(rawPacket)) return undefined
  const text = rawPacket.subarray(0, 16_384).toString("latin1")
  const end = text.indexOf("\r\n\r\n")
  if (end !== -1 && (typeof bytesParsed !== "number" || end < bytesParsed)) return undefined
  const line = requestLine.exec(text)
  return line === null ? undefined : { method: line[1], target: line[2]! }
}

/** Node's parser runs the body of an upgrade request itself from Node 26 (nodejs/node#60016); before, the body is in `head`. */
const upgradeBodyInHead = Number(process.versions.node.split(".")[0]) < 26

/**
 * The head of an upgrade request as bytes again, without the `upgrade` token
 * of `Connection`: Node's parser reads it as an ordinary request.
 */
const ordinaryHead = (request: IncomingMessage): Buffer => {
  let head = `${request.method} ${request.url} HTTP/${request.httpVersion}\r\n`
  const raw = request.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    let value = raw[i + 1]!
    if (raw[i]!.toLowerCase() === "connection") {
      value = value.split(",").map((token) => token.trim()).filter((token) => token !== "" && token.toLowerCase() !== "upgrade").join(", ")
      if (value === "") continue
    }
    head += `${raw[i]}: ${value}\r\n`
  }
  // Node decodes header bytes as Latin-1: the same bytes go back.
  return Buffer.from(head + "\r\n", "latin1")
}

/**
 * Hands a socket Node took out of HTTP parsing for an upgrade back to the
 * server, with the upgrade request (as an ordinary one) and every byte that
 * followed it (`head`: its body and any pipelined request) first. Waits until
 * the responses to the requests before it are written (the server's new
 * parser would otherwise queue its responses behind them forever), then
 * clears the idle timeout the old parser may have left on the socket.
 */
const serveAsOrdinary = (server: Server, connections: Follow, request: IncomingMessage, socket: Duplex, head: Buffer) => {
  // Once per socket, however many upgrade requests it carries (Node's own error listener is off until it is back).
  if (!socket.listeners("error").includes(ignoreError)) socket.on("error", ignoreError)
  try {
    socket.unshift(Buffer.concat([ordinaryHead(request), head]))
  } catch {
    socket.destroy()
    return
  }
  const reattach = () => {
    if (socket.destroyed) return
    const pending = connections.pending(socket)
    if (pending !== undefined) {
      pending.once("finish", reattach)
      return
    }
    ;(socket as Duplex & { setTimeout?: (millis: number) => void }).setTimeout?.(0)
    server.emit("connection", socket)
  }
  reattach()
}

const headerRecord = (headers: IncomingHttpHeaders): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const key in headers) {
    const value = headers[key]
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

/**
 * Makes every answer of a Node server the simulator's own: the section 7
 * envelope and an `x-request-id`, or a clean close.
 *
 * - The simulator serves no upgrades (WebSocket, h2c): a request carrying
 *   `Upgrade` is answered as an ordinary one and the keep-alive connection
 *   stays parsed. Node's parser stops reading a connection's bytes after an
 *   upgrade request (whatever the server's listeners: without an `upgrade`
 *   listener, the bytes after it in the same read were dropped), so the
 *   `upgrade` listener here (in place of the platform's) hands the socket back
 *   to the server with the request, minus its `upgrade` token, and the bytes
 *   after it ({@link serveAsOrdinary}).
 * - `CONNECT` (no proxy here) is 405 and the connection closes.
 * - An `Expect` other than `100-continue` reaches the application, which
 *   answers 417 with the envelope.
 * - A missing `Host` reaches the application too (400 with the envelope).
 * - Requests Node's HTTP parser rejects (bad bytes in the request line or the
 *   headers, oversized headers, a head or request that takes too long) never
 *   reach the application: they are answered here (400, 431, 408; with the
 *   deprecation headers when the request is seen to be under a deprecated `/v2.0` path)
 *   and the connection closes.
 */
export const harden = (server: Server, state: State, origins: Origins, legacySunset: number | undefined): void => {
  const connections = follow(server)
  server.removeAllListeners("upgrade")
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const framed = request.headers["transfer-encoding"] !== undefined || (request.headers["content-length"] ?? "0") !== "0"
    if (upgradeBodyInHead || !framed) return serveAsOrdinary(server, connections, request, socket, head)
    // Node 26 and later keep the body of an upgrade request in its own stream: not replayed.
    const requestId = requestIdFor(headerRecord(request.headers)[REQUEST_ID_HEADER], state)
    const path = routePath(request.url ?? "/")
    endRaw(
      socket,
      400,
      "Bad Request",
      "An Upgrade request with a body is not supported",
      requestId,
      deprecationLines(origins, path, legacySunset),
      { path, method: request.method }
    )
  })
  server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => server.emit("request", request, response))
  server.on("connect", (request: IncomingMessage, socket: Duplex) => {
    const headers = headerRecord(request.headers)
    const requestId = requestIdFor(headers[REQUEST_ID_HEADER], state)
    state.record(request.method ?? "CONNECT", request.url ?? "", headers, requestId).status = 405
    // Whatever the client sends after the request is read and discarded, so its FIN is seen.
    socket.resume()
    endRaw(socket, 405, "Method Not Allowed", "CONNECT is not supported: the simulator is not a proxy", requestId, "allow: GET, POST\r\n")
  })
  // Node's parser reports an error again on every later read (its errors stick), and a timeout may follow: the first one is answered.
  const answered = new WeakSet<Duplex>()
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (answered.has(socket)) return
    answered.add(socket)
    if (!socket.writable || error.code === "ECONNRESET") {
      socket.destroy()
      return
    }
    if (!socket.listeners("error").includes(ignoreError)) socket.on("error", ignoreError)
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400
    // The failing request, when its head was parsed (an error in its body, or a timeout during it).
    const failing = connections.incomplete(socket)
    const request = failingRequestOf(error, failing)
    const path = request === undefined ? undefined : routePath(request.target)
    // a request the application logged keeps its id, and its log entry gets the status (not 0, "in flight", forever)
    const own = failing === undefined ? undefined : answering.get(failing)
    const requestId = own?.requestId ?? state.nextRequestId()
    const answer = () => {
      if (own !== undefined && own.entry.status === 0) own.entry.status = status
      endRaw(
        socket,
        status,
        status === 431 ? "Request Header Fields Too Large" : status === 408 ? "Request Timeout" : "Bad Request",
        status === 431 ? "Request headers are too large" : status === 408 ? "The request took too long" : "The request is not valid HTTP",
        requestId,
        deprecationLines(origins, path, legacySunset),
        { path, method: request?.method }
      )
    }
    // The answers to the requests before the failing one go first (bounded).
    const timer = setTimeout(() => socket.destroy(), PENDING_ANSWERS_MILLIS)
    timer.unref()
    socket.once("close", () => clearTimeout(timer))
    const afterPending = () => {
      if (socket.destroyed || socket.writableEnded) return
      const pending = connections.pending(socket)
      if (pending !== undefined && (failing === undefined || pending.req !== failing)) {
        pending.once("finish", afterPending)
        return
      }
      clearTimeout(timer)
      // The failing request's own answer already on the wire cannot be followed by another: only a close is clean.
      if (pending?.headersSent === true) socket.destroy()
      else answer()
    }
    afterPending()
  })
}
