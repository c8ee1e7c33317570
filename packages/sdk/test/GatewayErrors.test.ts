/**
 * The Promise client's class of an error status whose body is not the
 * service's envelope (what a gateway or proxy answers: an empty or
 * plain-text 401, an HTML 502 or 503, a body cut short, a JSON `{ error }`
 * that is not the authorization server's) is the class of its status, and
 * its `retryAfter` is a delay `setTimeout` waits as asked; an envelope's
 * `links.about` and items are the error's `about` and `errors`. A
 * `node:http` server on 127.0.0.1 answers the token request and the call.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ServerResponse } from "node:http"
import type { ErrorItem } from "@connected-vehicle/schema/ServiceError"
import * as Client from "../src/Client.ts"
import { serveFile } from "./loopback.ts"

/** How the next `/v3` requests are answered. */
let answer: (response: ServerResponse) => void = (response) => response.end()
/** The `/v3` requests and token requests received. */
const seen = { calls: 0, tokens: 0 }

const server = serveFile((request, response) => {
  if (request.url?.startsWith("/oauth/token")) {
    seen.tokens++
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ access_token: `app-${seen.tokens}`, token_type: "Bearer", expires_in: 3600 }))
    return
  }
  seen.calls++
  answer(response)
})

const makeClient = () =>
  Client.createClient({
    clientId: "client-id",
    clientSecret: "client-secret",
    origin: server.origin(),
    transport: { retry: { maxAttempts: 3, initialDelay: 1, maxDelay: 1 } }
  })

/** The error `promise` rejects with, checked to be an instance of `expected`. */
const rejection = async <E>(promise: Promise<unknown>, expected: abstract new(...args: never) => E): Promise<E> => {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  assert.instanceOf(error, expected as unknown as new() => E)
  return error as E
}

const answering = (status: number, body: string, headers: Record<string, string> = {}) => {
  seen.calls = 0
  answer = (response) => {
    response.writeHead(status, { "content-type": "text/html", ...headers })
    response.end(body)
  }
}

describe("Promise client: an error status without the envelope", () => {
  it("a 401 with an empty or plain-text body, after the refresh-and-replay, is an AuthenticationError", async () => {
    await using client = makeClient()
    for (const body of ["", "Unauthorized"]) {
      answering(401, body)
      const error = await rejection(client.v3.webhooks.list(), Client.AuthenticationError)
      assert.strictEqual(error.status, 401)
      assert.strictEqual(error.reason, "Authentication")
      assert.strictEqual(error.code, "UNAUTHORIZED")
      assert.isFalse(error.isRetryable)
      assert.strictEqual(seen.calls, 2, JSON.stringify(body))
    }
  })

  it("an HTML 503 is a ServerError and a 502 an UpstreamError, retried, with retryAfter", async () => {
    await using client = makeClient()
    answering(503, "<html><h1>503 Service Temporarily Unavailable</h1></html>", { "retry-after": "0" })
    const unavailable = await rejection(client.v3.webhooks.list(), Client.ServerError)
    assert.strictEqual(unavailable.status, 503)
    assert.strictEqual(unavailable.retryAfter, 0)
    assert.isTrue(unavailable.isRetryable)
    assert.notInclude(unavailable.message, "<html>")
    assert.strictEqual(seen.calls, 3)
    answering(502, "<html><h1>502 Bad Gateway</h1></html>")
    const badGateway = await rejection(client.v3.webhooks.list(), Client.UpstreamError)
    assert.strictEqual(badGateway.status, 502)
    assert.strictEqual(seen.calls, 3)
  })

  it("a gateway's JSON with an error member is the class of its status, never an OAuthError", async () => {
    await using client = makeClient()
    const json = { "content-type": "application/json" }
    answering(401, JSON.stringify({ error: "invalid_token" }), json)
    const unauthorized = await rejection(client.v3.webhooks.list(), Client.AuthenticationError)
    assert.strictEqual(unauthorized.code, "UNAUTHORIZED")
    assert.strictEqual(seen.calls, 2)
    answering(404, JSON.stringify({ timestamp: "2026-01-01T00:00:00Z", status: 404, error: "Not Found", path: "/v3/webhooks/wh_1" }), json)
    const notFound = await rejection(client.v3.webhooks.get("wh_1"), Client.NotFoundError)
    assert.strictEqual(notFound.status, 404)
    assert.strictEqual(notFound.reason, "NotFound")
    answering(502, JSON.stringify({ error: "bad gateway" }), json)
    const badGateway = await rejection(client.v3.webhooks.list(), Client.UpstreamError)
    assert.strictEqual(badGateway.status, 502)
    assert.isTrue(badGateway.isRetryable)
  })

  it("a 404 whose body is cut is a NotFoundError at once, not a ConnectionError after retries", async () => {
    await using client = makeClient()
    seen.calls = 0
    answer = (response) => {
      response.writeHead(404, { "content-type": "application/json", "content-length": "500" })
      response.write("{\"errors\":")
      setTimeout(() => response.socket?.destroy(), 20)
    }
    const error = await rejection(client.v3.webhooks.list(), Client.NotFoundError)
    assert.strictEqual(error.status, 404)
    assert.include(error.detail, "could not be read")
    assert.strictEqual(seen.calls, 1)
  })

  it("a huge Retry-After gives a retryAfter setTimeout waits as asked: at most 2^31 - 1 ms, never Infinity", async () => {
    await using client = makeClient()
    for (const value of ["999999999", "9".repeat(400)]) {
      answering(503, "busy", { "retry-after": value })
      const error = await rejection(client.v3.webhooks.list(), Client.ServerError)
      assert.strictEqual(error.retryAfter, 2 ** 31 - 1)
      assert.strictEqual(seen.calls, 1)
    }
  })
})

describe("Promise client: the error envelope", () => {
  it("its links.about and its items are the error's about and errors, only when the service sent them", async () => {
    await using client = makeClient()
    const item = (detail: string, extra: Partial<ErrorItem> = {}): ErrorItem => ({
      status: "404",
      type: "RESOURCE_NOT_FOUND",
      code: "NOT_FOUND",
      title: "Not Found",
      detail,
      ...extra
    })
    const first = item("No such webhook", {
      links: { about: "https://docs.example/errors/not-found" },
      meta: { debug: { requestId: "req-9" } }
    })
    const envelope = { errors: [first, item("second")] }
    answering(404, JSON.stringify(envelope), { "content-type": "application/json" })
    const error = await rejection(client.v3.webhooks.get("wh_1"), Client.NotFoundError)
    assert.strictEqual(error.about, "https://docs.example/errors/not-found")
    assert.deepStrictEqual(error.errors, envelope.errors)
    assert.strictEqual(error.requestId, "req-9")

    answering(404, JSON.stringify({ errors: [item("No such webhook")] }), { "content-type": "application/json" })
    const plain = await rejection(client.v3.webhooks.get("wh_1"), Client.NotFoundError)
    assert.isUndefined(plain.about)
    assert.deepStrictEqual(plain.errors, [item("No such webhook")])

    // no envelope: neither
    answering(404, "<html>Not Found</html>")
    const gateway = await rejection(client.v3.webhooks.get("wh_1"), Client.NotFoundError)
    assert.isUndefined(gateway.about)
    assert.isUndefined(gateway.errors)
  })

  it("names the request that failed (method, URL), and JSON.stringify gives its name, message and fields, never its cause", async () => {
    await using client = makeClient()
    answering(503, "<html>down</html>", { "retry-after": "0" })
    const error = await rejection(client.v3.webhooks.get("wh_1"), Client.ServerError)
    assert.strictEqual(error.method, "GET")
    assert.strictEqual(error.url, `${server.origin()}/v3/webhooks/wh_1`)
    const json = JSON.parse(JSON.stringify(error))
    assert.strictEqual(json.name, "ServerError")
    assert.strictEqual(json.message, error.message)
    assert.strictEqual(json.reason, "Server")
    assert.strictEqual(json.status, 503)
    assert.strictEqual(json.url, `${server.origin()}/v3/webhooks/wh_1`)
    assert.notProperty(json, "cause")
    assert.notInclude(JSON.stringify(error), "app-")
  })
})
