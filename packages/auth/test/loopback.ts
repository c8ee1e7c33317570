/**
 * A `node:http` server on 127.0.0.1 for the whole file (started before its
 * tests, closed after them): `/oauth/token` requests go to `onToken`, every
 * other request to `onApi`, each with its body read; and the legacy
 * odometer read through the transport, for calls that need a credential.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import type { Duration } from "effect"
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Transport from "@connected-vehicle/transport/Transport"

export type Handler = (request: IncomingMessage, response: ServerResponse, body: Buffer) => void

/** The server of the file: its origin once started. */
export const tokenEndpoint = (onToken: Handler, onApi: Handler): { readonly origin: () => string } => {
  let server: Server
  let origin = ""
  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => (request.url?.startsWith("/oauth/token") ? onToken : onApi)(request, response, Buffer.concat(chunks)))
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

/** A JSON answer. */
export const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { "content-type": "application/json", ...headers })
  response.end(JSON.stringify(body))
}

/** The client credential of the tests. */
export const oauth = OAuthConfig.layer({ clientId: "app", clientSecret: Redacted.make("secret") })

/** The legacy odometer of `veh-1`, within `timeout` when given. */
export const odometer = (timeout?: Duration.Input) =>
  Effect.flatMap(
    Transport.client(LegacyApi, "legacy"),
    (legacy) => legacy.odometer({ params: { id: "veh-1" } }, timeout === undefined ? undefined : { timeout })
  )
