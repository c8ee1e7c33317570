/**
 * The application token's request failing or stalling, seen from the
 * Promise client and the Effect layer: `close()` (and the layer's close)
 * does not wait for a stalled client-credentials request, which it aborts;
 * a token endpoint refusing the client with a 400 `invalid_client` is an
 * `AuthenticationError` with that status. A `node:http` server on
 * 127.0.0.1 is the token endpoint and the service.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit, Redacted } from "effect"
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { Webhooks } from "@connected-vehicle/v3/Webhooks"
import * as Client from "../src/Client.ts"
import * as ClientError from "../src/ClientError.ts"
import * as ConnectedVehicle from "../src/ConnectedVehicle.ts"

let server: Server
let origin: string
/** How the token endpoint answers (`stall`: never). */
let mode: "stall" | "invalid_client" = "stall"
/** The token requests: whether the client went away before an answer. */
let tokens: Array<{ aborted: boolean }> = []

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume()
    if (request.url?.startsWith("/oauth/token")) {
      const entry = { aborted: false }
      tokens.push(entry)
      response.on("close", () => entry.aborted = !response.writableFinished)
      if (mode === "stall") return
      response.writeHead(400, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: "invalid_client" }))
      return
    }
    response.writeHead(500, { "content-type": "application/json" })
    response.end("{}")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const answering = (given: typeof mode) => {
  mode = given
  tokens = []
}

/** Until `done` (or 3 s). */
const until = async (done: () => boolean) => {
  for (let i = 0; i < 300 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  assert.isTrue(done(), "waited 3 s")
}

describe("a stalled client-credentials token request", () => {
  it("Promise client: close() returns at once, the call is aborted and so is the token request", async () => {
    answering("stall")
    const client = Client.createClient({ clientId: "client-id", clientSecret: "client-secret", origin })
    const call = client.v3.webhooks.list({}).then(() => undefined, (error: unknown) => error)
    await until(() => tokens.length === 1)
    const started = Date.now()
    await client.close()
    assert.isBelow(Date.now() - started, 1_000, "close() waited for the stalled token request")
    assert.instanceOf(await call, ClientError.AbortError)
    await until(() => tokens[0]!.aborted)
  }, 10_000)

  it("Effect layer: a call that gives up ends the program at once, its layer closed, the token request aborted", async () => {
    answering("stall")
    const program = Effect.gen(function*() {
      const webhooks = yield* Webhooks
      return yield* webhooks.list({}).pipe(Effect.timeout("300 millis"), Effect.exit)
    })
    const started = Date.now()
    const exit = await Effect.runPromise(program.pipe(Effect.provide(ConnectedVehicle.layer({
      transport: { roots: TransportConfig.rootsFromOrigin(origin) },
      oauth: { clientId: "client-id", clientSecret: Redacted.make("client-secret") }
    }))))
    assert.isTrue(Exit.isFailure(exit))
    assert.isBelow(Date.now() - started, 1_500, "the layer's close waited for the stalled token request")
    await until(() => tokens[0]?.aborted === true)
  }, 10_000)
})

describe("a token endpoint refusing the client", () => {
  it("400 invalid_client: an AuthenticationError with status 400", async () => {
    answering("invalid_client")
    await using client = Client.createClient({ clientId: "client-id", clientSecret: "client-secret", origin })
    const error = await client.v3.webhooks.list({}).then(() => undefined, (error: unknown) => error)
    assert.instanceOf(error, ClientError.AuthenticationError)
    assert.strictEqual((error as ClientError.AuthenticationError).status, 400)
    assert.strictEqual((error as ClientError.AuthenticationError).code, "invalid_client")
    // a call of the next 10 s (no token request: the refusal shared) gets the same code and type
    const again = await client.v3.webhooks.list({}).then(() => undefined, (error: unknown) => error)
    assert.instanceOf(again, ClientError.AuthenticationError)
    assert.strictEqual((again as ClientError.AuthenticationError).code, "invalid_client")
    assert.strictEqual((again as ClientError.AuthenticationError).type, (error as ClientError.AuthenticationError).type)
  })
})
