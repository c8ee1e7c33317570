/**
 * A `node:http` server on 127.0.0.1 for the whole test file (started before
 * its tests, closed after them), each request handed to `handler` with its
 * body read.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** The file's server: its origin once started. */
export const serveFile = (handler: (request: IncomingMessage, response: ServerResponse, body: string) => void): { readonly origin: () => string } => {
  let server: Server
  let origin = ""
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk) => body += chunk)
      request.on("end", () => handler(request, response, body))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { origin: () => origin }
}
