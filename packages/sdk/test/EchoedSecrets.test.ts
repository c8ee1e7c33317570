/**
 * The Promise client's errors never show a secret the server echoed, in
 * whatever form it echoed it: the client secret quoted JSON-escaped (`\/`,
 * `\uXXXX`) or form-encoded by a token endpoint that refuses the client,
 * the access token escaped in an envelope of a `/v3` endpoint. A
 * `node:http` server on 127.0.0.1 answers the token request and the call.
 */
import { inspect } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import type { ServerResponse } from "node:http"
import * as Client from "../src/Client.ts"
import { serveFile } from "./loopback.ts"

const clientSecret = "client/secret+x=="
const accessToken = "at/1+token=="

/** How the token endpoint answers, given the form body it received. */
let tokenAnswer: (body: string, response: ServerResponse) => void
/** How the `/v3` requests are answered. */
let callAnswer: (response: ServerResponse) => void = (response) => response.end()

const server = serveFile((request, response, body) => request.url?.startsWith("/oauth/token") ? tokenAnswer(body, response) : callAnswer(response))

const makeClient = () =>
  Client.createClient({ clientId: "client-id", clientSecret, origin: server.origin(), transport: { retry: { maxAttempts: 1 } } })

/** `\uXXXX` for every character of `text`. */
const uEscaped = (text: string) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")

/** The forms of `secret` (as sent, percent- or form-encoded, `\/`-escaped) that the error shows. */
const leaks = (error: unknown, secret: string) => {
  const e = error as Client.ConnectedVehicleError
  const texts = [String(e), e.message, e.stack ?? "", JSON.stringify(e), inspect(e, { depth: 10 }), String(e.cause)]
  const forms = [secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2), secret.replaceAll("/", "\\/")]
  return forms.filter((form) => texts.some((text) => text.includes(form)))
}

describe("Promise client: secrets echoed escaped or encoded", () => {
  it("a token endpoint that quotes the client secret escaped or the form it got: an AuthenticationError without it", async () => {
    const refusals = [
      (body: string) => JSON.stringify({ error: "invalid_client", error_description: `bad client for ${body}&client_secret=${encodeURIComponent(clientSecret)}` }),
      () => `{"error":"invalid_client","error_description":"secret ${clientSecret.replaceAll("/", "\\/")} is wrong"}`,
      () => `{"error":"invalid_client","error_description":"secret ${uEscaped(clientSecret)} is wrong"}`
    ]
    for (const refusal of refusals) {
      tokenAnswer = (body, response) => {
        response.writeHead(401, { "content-type": "application/json" })
        response.end(refusal(body))
      }
      await using client = makeClient()
      const error = await client.v3.webhooks.list().then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, Client.AuthenticationError)
      assert.strictEqual((error as Client.AuthenticationError).code, "invalid_client")
      assert.deepStrictEqual(leaks(error, clientSecret), [])
      assert.include((error as Error).message, "<redacted>")
    }
  })

  it("an access token echoed escaped in a /v3 envelope: a NotFoundError whose detail and items are redacted", async () => {
    tokenAnswer = (_, response) => {
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ access_token: accessToken, token_type: "Bearer", expires_in: 3600 }))
    }
    callAnswer = (response) => {
      response.writeHead(404, { "content-type": "application/json" })
      response.end(
        `{"errors":[{"status":"404","type":"RESOURCE_NOT_FOUND","code":"NOT_FOUND","title":"Not Found",` +
          `"detail":"no webhook for ${accessToken.replaceAll("/", "\\/")}","suggestedUserMessage":"${uEscaped(accessToken)}"}]}`
      )
    }
    await using client = makeClient()
    const error = await client.v3.webhooks.get("wh_1").then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, Client.NotFoundError)
    assert.deepStrictEqual(leaks(error, accessToken), [])
    assert.include((error as Client.NotFoundError).detail, "<redacted>")
  })
})
