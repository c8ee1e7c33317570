/**
 * The Promise client's errors never show a secret the server echoed, in
 * whatever form it echoed it: the client secret quoted JSON-escaped (`\/`,
 * `\uXXXX`) or form-encoded by a token endpoint that refuses the client,
 * the access token escaped in an envelope of a `/v3` endpoint, either
 * echoed in the request-id header (`x-request-id`). A `node:http` server on 127.0.0.1 answers the token request and the call.
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

/** The `authorization` header of the last request (a server may echo it in a response header). */
let authorization = ""

const server = serveFile((request, response, body) => {
  authorization = request.headers.authorization ?? ""
  return request.url?.startsWith("/oauth/token") ? tokenAnswer(body, response) : callAnswer(response)
})

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

describe("Promise client: secrets echoed in the request-id header", () => {
  const basic = `Basic ${Buffer.from(`client-id:${clientSecret}`).toString("base64")}`
  const secrets = [clientSecret, basic.slice(6), accessToken]
  /** The secrets the error or a log line shows, in any of the forms `leaks` looks for. */
  const shown = (error: unknown, lines: ReadonlyArray<unknown>) => [
    ...secrets.flatMap((secret) => leaks(error, secret)),
    ...secrets.filter((secret) => lines.some((line) => inspect(line, { depth: 10 }).includes(secret) || JSON.stringify(line).includes(secret)))
  ]
  const withLog = () => {
    const lines: Array<Client.LogEntry> = []
    const client = Client.createClient({
      clientId: "client-id",
      clientSecret,
      origin: server.origin(),
      transport: { retry: { maxAttempts: 1 } },
      logLevel: "debug",
      logger: (entry) => lines.push(entry)
    })
    return { client, lines }
  }

  it("a token endpoint that refuses the client and echoes its Basic credential as x-request-id: neither the error nor the log shows it", async () => {
    tokenAnswer = (_, response) => {
      response.writeHead(401, { "content-type": "application/json", "x-request-id": authorization })
      response.end(JSON.stringify({ error: "invalid_client" }))
    }
    const { client, lines } = withLog()
    await using _ = client
    const error = await client.v3.webhooks.list().then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, Client.AuthenticationError)
    assert.isTrue(lines.some((line) => line.message === "http attempt" && line.annotations["requestId"] === "<redacted>"))
    assert.deepStrictEqual(shown(error, lines), [])
  })

  it("a /v3 endpoint that echoes the bearer token as x-request-id (and the token endpoint the Basic credential): a NotFoundError and log lines without either", async () => {
    tokenAnswer = (_, response) => {
      response.writeHead(200, { "content-type": "application/json", "x-request-id": `echo ${authorization}` })
      response.end(JSON.stringify({ access_token: accessToken, token_type: "Bearer", expires_in: 3600 }))
    }
    callAnswer = (response) => {
      response.writeHead(404, { "content-type": "application/json", "x-request-id": `echo ${authorization}` })
      response.end(JSON.stringify({ errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail: "nope" }] }))
    }
    const { client, lines } = withLog()
    await using _ = client
    const error = await client.v3.webhooks.get("wh_1").then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, Client.NotFoundError)
    assert.strictEqual((error as Client.NotFoundError).requestId, "echo <redacted>")
    assert.strictEqual(lines.filter((line) => line.message === "http attempt" && line.annotations["requestId"] === "echo <redacted>").length, 2)
    assert.deepStrictEqual(shown(error, lines), [])
  })
})
