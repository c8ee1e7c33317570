/**
 * Inputs that cannot be sent as given are refused before anything is sent,
 * with an `InvalidArgumentError` naming them: a `userAgent` or a user's
 * access token a header cannot carry, a redirect URI that is not absolute
 * (the consent URL, the client option and the code exchange: one rule), a
 * code with a lone surrogate, a `userId` the `sc-user-id` header would not
 * carry as it is. A token endpoint granting an access token a header cannot
 * carry is a 200 that breaks section 4.6, not a connection failure at every
 * call. A `node:http` server on 127.0.0.1 records every request.
 */
import { afterAll, assert, beforeAll, beforeEach, describe, it } from "@effect/vitest"
import { createServer } from "node:http"
import type { IncomingHttpHeaders, Server } from "node:http"
import type { AddressInfo } from "node:net"
import { createClient, InvalidArgumentError } from "@connected-vehicle/sdk/Client"
import type { ClientOptions } from "@connected-vehicle/sdk/Client"
import * as ClientError from "@connected-vehicle/sdk/ClientError"

let server: Server
let origin: string
/** Every request the server got. */
let requests: Array<{ readonly url: string; readonly headers: IncomingHttpHeaders }> = []
/** The access token the token endpoint grants. */
let granted = "app-token"

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume()
    requests.push({ url: request.url ?? "", headers: request.headers })
    if (request.url?.startsWith("/oauth/token")) {
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ access_token: granted, token_type: "Bearer", expires_in: 3600, refresh_token: "r" }))
      return
    }
    response.writeHead(404, { "content-type": "application/json" })
    response.end(JSON.stringify({ errors: [{ type: "RESOURCE_NOT_FOUND", code: "VEHICLE", title: "not found", status: 404 }] }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

beforeEach(() => {
  requests = []
  granted = "app-token"
})

const options = (): ClientOptions => ({ clientId: "app", clientSecret: "secret", origin, redirectUri: "https://app.example/cb", maxRetries: 0 })

const failure = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => undefined, (error: unknown) => error)

const assertRefused = (error: unknown, field: string, label: string) => {
  assert.instanceOf(error, InvalidArgumentError, label)
  assert.strictEqual((error as InvalidArgumentError).field, field, label)
}

const notAbsolute = ["../x", "a\u0000b", " ", "\u0085", "/cb", "app.example/cb", " https://app.example/cb", "https://app.example/c b", "https://app.example/cb#frag"]

describe("inputs that cannot be sent faithfully", () => {
  it("a userAgent a header cannot carry is refused when the client is created", () => {
    for (const userAgent of ["sdk✓", "sdk\u0100", "a\u007fb"]) {
      let error: unknown
      try {
        void createClient({ ...options(), transport: { userAgent } }).close()
      } catch (e) {
        error = e
      }
      assertRefused(error, "transport.userAgent", userAgent)
    }
    // Latin-1 and a tab are what a header carries
    void createClient({ ...options(), transport: { userAgent: "fleet/1.0 (caf\u00e9)\tx" } }).close()
  })

  it("a user token that cannot be an Authorization header value is refused by setUserToken, not quoted", async () => {
    await using client = createClient(options())
    for (const accessToken of ["abc\r\nx-evil: 1", "tok✓en", " tok", "tok\t", "tok\u0000"]) {
      const error = await failure(client.legacy.setUserToken({ accessToken }))
      assertRefused(error, "accessToken", JSON.stringify(accessToken))
      assert.notInclude((error as Error).message, "tok")
    }
    await client.legacy.setUserToken({ accessToken: "tok en\u00e9" })
    assert.deepStrictEqual(requests, [])
  })

  it("a redirectUri that is not an absolute URI without a fragment: the same InvalidArgumentError from authorizationUrl, createClient and login", async () => {
    await using client = createClient(options())
    for (const redirectUri of notAbsolute) {
      const label = JSON.stringify(redirectUri)
      const consent = await failure(client.legacy.authorizationUrl({ permissions: ["read_odometer"], redirectUri }))
      assertRefused(consent, "redirectUri", label)
      let created: unknown
      try {
        void createClient({ ...options(), redirectUri }).close()
      } catch (e) {
        created = e
      }
      assertRefused(created, "redirectUri", label)
      assert.strictEqual((created as Error).message, (consent as Error).message, label)
      assertRefused(await failure(client.legacy.login({ code: "abc", redirectUri })), "redirectUri", label)
    }
    for (const redirectUri of ["https://app.example/cb?x=1", "com.example.app:/callback", "myapp://callback"]) {
      const url = new URL(await client.legacy.authorizationUrl({ permissions: ["read_odometer"], redirectUri }))
      assert.strictEqual(url.searchParams.get("redirect_uri"), redirectUri)
    }
    assert.deepStrictEqual(requests, [])
  })

  it("login with a code holding a lone surrogate is refused, nothing sent", async () => {
    await using client = createClient(options())
    for (const code of ["ab\ud800cd", "\udc00"]) assertRefused(await failure(client.legacy.login({ code })), "code", code)
    assert.deepStrictEqual(requests, [])
    await client.legacy.login({ code: "abc" })
    assert.deepStrictEqual(requests.map((r) => r.url), ["/oauth/token"])
  })

  it("a userId the sc-user-id header would not carry as it is: an InvalidArgumentError naming it, no signal request", async () => {
    await using client = createClient(options())
    for (const userId of ["  u1  ", " ", "u1 ", "\tu1", "\u00e9", "u1, u2", "u\u00ff"]) {
      const label = JSON.stringify(userId)
      assertRefused(await failure(client.v3.signals.list({ vehicleId: "v", userId })), "userId", label)
      assertRefused(await failure(client.v3.signals.get({ vehicleId: "v", userId, code: "odometer" })), "userId", label)
    }
    assert.deepStrictEqual(requests.filter((r) => r.url.includes("/signals")), [])
    // an inner space, and what an id looks like, arrive as given
    for (const userId of ["usr_1", "a b", "3f2a-99:x@example.com"]) {
      await failure(client.v3.signals.list({ vehicleId: "v", userId }))
      assert.strictEqual(requests.at(-1)?.headers["sc-user-id"], userId)
    }
  })

  it("a token endpoint granting an access token a header cannot carry: a 200 that breaks section 4.6, no service request", async () => {
    for (const token of ["tok✓en", " tok", "tok\u0001en"]) {
      granted = token
      requests = []
      await using client = createClient(options())
      const error = await failure(client.v3.webhooks.list())
      assert.instanceOf(error, ClientError.ConnectedVehicleError, token)
      assert.notInstanceOf(error, ClientError.ConnectionError, token)
      assert.include(`${String(error)} ${JSON.stringify(error)}`, "InvalidResponse", token)
      assert.deepStrictEqual(requests.map((r) => r.url), ["/oauth/token"], token)
    }
  })
})
