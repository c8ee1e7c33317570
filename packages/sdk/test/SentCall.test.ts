/**
 * The Promise client's `sent` of an error that comes from the token
 * request: whether the call's own request was written, not the token
 * request. A call answered 401 whose renewal could not connect may have
 * been processed: its `ConnectionError` does not say `sent: false`; a first
 * call whose token request could not connect sent nothing: it does. A
 * `node:http` server on 127.0.0.1 is the token endpoint and the service.
 */
import { assert, describe, it } from "@effect/vitest"
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import * as Client from "../src/Client.ts"
import * as ClientError from "../src/ClientError.ts"

/** A server that answers with `answer`, then stops listening and drops its connections (`close` after the first answer whose `closing` it calls). */
const serving = async (answer: (url: string, response: ServerResponse, closing: () => void) => void) => {
  const sockets = new Set<Socket>()
  const seen: Array<string> = []
  const server = createServer((request, response) => {
    request.resume()
    seen.push(`${request.method} ${request.url}`)
    answer(request.url ?? "", response, () => {
      server.close()
      for (const socket of sockets) socket.destroy()
    })
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => server.close() }
}

/** A server that grants a token, answers the service's requests 401 and closes itself after the first. */
const closingOn401 = () =>
  serving((url, response, closing) => {
    if (url.startsWith("/oauth/token")) {
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ access_token: "app-1", token_type: "Bearer", expires_in: 3600 }))
      return
    }
    response.writeHead(401, { "content-type": "application/json", connection: "close" })
    // gone: the renewal the 401 starts cannot connect
    response.end("{}", closing)
  })

describe("the Promise client's sent, for an error of the token request", () => {
  it("a call answered 401 whose renewal could not connect: not sent: false (the call's request was written)", async () => {
    const service = await closingOn401()
    try {
      await using client = Client.createClient({ clientId: "app", clientSecret: "secret", origin: service.origin })
      const error = await client.v3.webhooks.list({}, { maxRetries: 0 }).then(() => assert.fail("succeeded"), (e: unknown) => e)
      assert.instanceOf(error, ClientError.ConnectionError)
      assert.isUndefined((error as ClientError.ConnectionError).sent)
      assert.deepStrictEqual(service.seen.map((line) => line.split("?")[0]), ["POST /oauth/token", "GET /v3/webhooks"])
    } finally {
      service.close()
    }
  }, 15_000)

  it("a first call whose token request could not connect: sent: false", async () => {
    const service = await closingOn401()
    service.close()
    await using client = Client.createClient({ clientId: "app", clientSecret: "secret", origin: service.origin })
    const error = await client.v3.webhooks.list({}, { maxRetries: 0 }).then(() => assert.fail("succeeded"), (e: unknown) => e)
    assert.instanceOf(error, ClientError.ConnectionError)
    assert.strictEqual((error as ClientError.ConnectionError).sent, false)
  }, 15_000)

  it("a token request answered 503, then repeated by the grant and refused: not sent: false (the first reached the token endpoint)", async () => {
    const service = await serving((_, response, closing) => {
      response.writeHead(503, { "content-type": "application/json", "retry-after": "0", connection: "close" })
      response.end("{}", closing)
    })
    try {
      await using client = Client.createClient({ clientId: "app", clientSecret: "secret", origin: service.origin })
      const error = await client.v3.webhooks.list({}, { maxRetries: 0 }).then(() => assert.fail("succeeded"), (e: unknown) => e)
      assert.instanceOf(error, ClientError.ConnectionError)
      assert.isUndefined((error as ClientError.ConnectionError).sent)
      assert.strictEqual(service.seen.length, 1)
    } finally {
      service.close()
    }
  }, 15_000)
})
