/**
 * The Promise client's failures over loopback (see `loopback.ts`): the class
 * of each reason, connection and token failures, logging, and no secret in
 * any error.
 */
import { assert, describe, it, vi } from "@effect/vitest"
import { Redacted } from "effect"
import * as net from "node:net"
import * as util from "node:util"
import * as Client from "@connected-vehicle/sdk/Client"
import {
  assertNoSecretIn,
  clientSecret,
  collect,
  consentCode,
  errorsSeen,
  expectError,
  inject,
  makeClient,
  proxy,
  redirectUri,
  sim,
  useLoopback
} from "./loopback.ts"
import { busiestUser } from "@connected-vehicle/testing/Simulated"

useLoopback()

describe("Client failures", () => {
  it("each failure is the class of its reason, with reason, status, type, code, requestId and isRetryable", async () => {
    await using client = makeClient()
    const once = { maxRetries: 0 }

    await inject("/v3/webhooks", [{ _tag: "Status", status: 400 }])
    const badRequest = await expectError(client.v3.webhooks.list({}, once), Client.ValidationError)
    assert.strictEqual(badRequest.status, 400)
    assert.strictEqual(badRequest.type, "VALIDATION")
    assert.strictEqual(badRequest.reason, "Validation")
    assert.isFalse(badRequest.isRetryable)

    // a 401 refreshes the token and replays once: the second 401 is the caller's
    await inject("/v3/webhooks", [{ _tag: "Status", status: 401 }, { _tag: "Status", status: 401 }])
    const unauthorized = await expectError(client.v3.webhooks.list({}, once), Client.AuthenticationError)
    assert.strictEqual(unauthorized.status, 401)
    assert.strictEqual(unauthorized.type, "AUTHENTICATION")
    assert.strictEqual(unauthorized.code, "UNAUTHORIZED")

    await inject("/v3/webhooks", [{ _tag: "Status", status: 403 }])
    const forbidden = await expectError(client.v3.webhooks.list({}, once), Client.PermissionDeniedError)
    assert.strictEqual(forbidden.status, 403)

    const missing = await expectError(client.v3.webhooks.get("00000000-0000-4000-8000-000000000000"), Client.NotFoundError)
    assert.strictEqual(missing.status, 404)
    assert.strictEqual(missing.type, "RESOURCE_NOT_FOUND")
    assert.strictEqual(missing.code, "NOT_FOUND")
    assert.isString(missing.requestId)
    assert.strictEqual(missing.reason, "NotFound")
    const cause = missing.cause as { readonly _tag: string; readonly reason: { readonly _tag: string } }
    assert.deepStrictEqual([cause._tag, cause.reason._tag], ["ConnectedVehicleError", "NotFound"])

    await inject("/v3/webhooks", [{ _tag: "Status", status: 409 }])
    assert.strictEqual((await expectError(client.v3.webhooks.list({}, once), Client.VehicleStateError)).status, 409)

    await inject("/v3/webhooks", [{ _tag: "Status", status: 429, retryAfter: "3" }])
    const limited = await expectError(client.v3.webhooks.list(), Client.RateLimitError)
    assert.strictEqual(limited.status, 429)
    assert.strictEqual(limited.retryAfter, 3_000)
    assert.isTrue(limited.isRetryable)
    assert.strictEqual(limited.type, "RATE_LIMIT")

    await inject("/v3/webhooks", [{ _tag: "Status", status: 500 }])
    const server = await expectError(client.v3.webhooks.list({}, once), Client.ServerError)
    assert.strictEqual(server.status, 500)
    assert.isTrue(server.isRetryable)
    assert.isString(server.requestId)
    assert.isUndefined(server.retryAfter)

    await inject("/v3/webhooks", [{ _tag: "Status", status: 503, retryAfter: "2" }])
    const unavailable = await expectError(client.v3.webhooks.list({}, once), Client.ServerError)
    assert.strictEqual(unavailable.status, 503)
    assert.strictEqual(unavailable.retryAfter, 2_000)

    await inject("/v3/webhooks", [{ _tag: "StallBody" }])
    const timeout = await expectError(client.v3.webhooks.list({}, { timeout: 300, maxRetries: 0 }), Client.TimeoutError)
    assert.strictEqual(timeout.timeout, 300)
    assert.strictEqual(timeout.status, 200)

    await inject("/v3/webhooks", [{ _tag: "MalformedJson" }])
    await expectError(client.v3.webhooks.list({}, once), Client.InvalidResponseError)

    const pageSize = await expectError(client.v3.connections.list({ pageSize: 0 }), Client.InvalidArgumentError)
    assert.strictEqual(pageSize.field, "pageSize")
    assert.strictEqual((await expectError(client.v3.connections.list({}, { maxRetries: -1 }), Client.InvalidArgumentError)).field, "maxRetries")
    assert.strictEqual((await expectError(client.v3.connections.list({}, { timeout: "soon" as "1 second" }), Client.InvalidArgumentError)).field, "timeout")
    await expectError(collect(client.v3.connections.iterate({ pageSize: 101 })), Client.InvalidArgumentError)
    await expectError(client.legacy.odometer(""), Client.InvalidArgumentError)
    await expectError(client.legacy.setUserToken({ accessToken: "" }), Client.InvalidArgumentError)
    // a getter of the caller's token that throws is an InvalidArgumentError naming the token, not a raw error
    const throwing = await expectError(
      client.legacy.setUserToken({
        get accessToken(): string {
          throw new Error("getter failed")
        }
      }),
      Client.InvalidArgumentError
    )
    assert.strictEqual(throwing.field, "token")
    assert.strictEqual((await expectError(client.legacy.login({ code: "" }), Client.InvalidArgumentError)).field, "code")
    await expectError(client.v3.signals.list(null as unknown as Parameters<typeof client.v3.signals.list>[0]), Client.InvalidArgumentError)
    const badOptions = (() => {
      try {
        Client.createClient({ clientId: "id", clientSecret: clientSecret, origin: "not a url" })
      } catch (error) {
        return error
      }
    })()
    assert.instanceOf(badOptions, Client.InvalidArgumentError)
    errorsSeen.push(badOptions)

    // nobody signed in
    await expectError(client.legacy.odometer("v-1"), Client.CredentialsError)
    // the code exchange refused
    assert.strictEqual((await expectError(client.legacy.login({ code: "not-a-code" }), Client.OAuthError)).status, 400)
  }, 60_000)

  it("connection refused is a ConnectionError; a wrong client secret an AuthenticationError", async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as net.AddressInfo
        server.close(() => resolve(port))
      })
    })
    {
      await using refused = makeClient({ origin: `http://127.0.0.1:${closedPort}` })
      const error = await expectError(refused.v3.compatibility.list({}, { maxRetries: 0 }), Client.ConnectionError)
      assert.isUndefined(error.status)
      assert.strictEqual(error.reason, "Connection")
      // nothing of the request was written
      assert.strictEqual(error.sent, false)
    }
    await using wrong = makeClient({ clientSecret: Redacted.make(`${clientSecret}-wrong`) })
    const denied = await expectError(wrong.v3.webhooks.list(), Client.AuthenticationError)
    assert.strictEqual(denied.status, 401)
  }, 60_000)

  it("a failed token request is what happened to it: refused → ConnectionError, stalled → TimeoutError, 500/503 → ServerError, wrong secret → AuthenticationError (the CredentialsError as cause)", async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as net.AddressInfo
        server.close(() => resolve(port))
      })
    })
    type Failed = { readonly _tag: string; readonly reason: { readonly _tag: string; readonly description?: string; readonly cause?: Failed } }
    const credentialsCause = (error: Client.ConnectedVehicleError) => {
      const cause = error.cause as Failed
      assert.strictEqual(cause._tag, "ConnectedVehicleError")
      assert.strictEqual(cause.reason._tag, "Credentials")
      assert.match(error.message, /^The token request failed: /)
      // the token request's own failure
      return { description: cause.reason.description, request: cause.reason.cause!.reason._tag }
    }
    {
      // the first call fetches the application token: the token endpoint is the one refused
      await using refused = makeClient({ origin: `http://127.0.0.1:${closedPort}` })
      const error = await expectError(refused.v3.connections.list({}, { maxRetries: 0 }), Client.ConnectionError)
      assert.isFalse(error instanceof Client.CredentialsError, "not a CredentialsError")
      assert.isUndefined(error.status)
      assert.strictEqual(error.reason, "Connection")
      assert.strictEqual(error.sent, false, "the token request was never written")
      const { description, request } = credentialsCause(error)
      assert.strictEqual(request, "Connection")
      assert.match(description ?? "", /^Connection: POST http:\/\/127\.0\.0\.1:\d+\/oauth\/token failed/)
    }
    {
      // answered after 3 s, ten times the call's timeout (and the simulator's shutdown after the file's tests
      // waits for that handler: a longer delay only makes it wait longer)
      await inject("/oauth/token", [{ _tag: "Delay", delay: "3000 millis" }])
      await using stalled = makeClient({ timeout: 300 })
      const error = await expectError(stalled.v3.connections.list({}, { maxRetries: 0 }), Client.TimeoutError)
      assert.strictEqual(error.reason, "Timeout")
      assert.strictEqual(error.timeout, 300)
      assert.isFalse(error.isRetryable)
      // the call's wait for its token ran out (the token request still running): the Credentials error as cause
      const cause = error.cause as Failed
      assert.strictEqual(cause.reason._tag, "Credentials")
      assert.match(cause.reason.description ?? "", /^the credential did not come within 300 ms \(the timeout\)/)
    }
    for (const status of [500, 503]) {
      // answered three times: the grant sends a client-credentials request twice more before the call sees the failure
      await inject("/oauth/token", [{ _tag: "Status", status }, { _tag: "Status", status }, { _tag: "Status", status }])
      await using failing = makeClient()
      const error = await expectError(failing.v3.webhooks.list({}, { maxRetries: 0 }), Client.ServerError)
      assert.strictEqual(error.status, status)
      credentialsCause(error)
      // the token endpoint is answering again: the next call gets a token and its answer
      assert.isNumber((await failing.v3.webhooks.list({ pageSize: 1 })).meta.totalCount)
    }
    {
      await using wrong = makeClient({ clientSecret: `${clientSecret}-wrong` })
      const error = await expectError(wrong.v3.connections.list({}, { maxRetries: 0 }), Client.AuthenticationError)
      assert.strictEqual(error.status, 401)
      assert.strictEqual(error.code, "invalid_client")
      assert.strictEqual(error.type, "OAUTH")
      assert.strictEqual(error.reason, "Authentication")
      assert.strictEqual(credentialsCause(error).request, "OAuth")
    }
    {
      // a refresh token the endpoint refuses (invalid_grant): the user must sign in again
      await using client = makeClient()
      await client.legacy.setUserToken({ accessToken: "stale-access-token", refreshToken: "not-a-refresh-token", expiresAt: 0 })
      const error = await expectError(client.legacy.list(), Client.CredentialsError)
      assert.strictEqual(error.status, 400)
      assert.strictEqual(error.code, "invalid_grant")
    }
  }, 60_000)

  it("an id over 100 characters is the endpoint's NotFoundError (a v3 get, a legacy read), not a 405", async () => {
    await using client = makeClient({ maxRetries: 0 })
    const id = "a".repeat(150)
    const connection = await expectError(client.v3.connections.get(id), Client.NotFoundError)
    assert.deepStrictEqual([connection.status, connection.type, connection.code], [404, "RESOURCE_NOT_FOUND", "NOT_FOUND"])
    assert.include(connection.message, `No connection with id '${id.slice(0, 40)}'...`)
    await client.legacy.login({ code: await consentCode(busiestUser(sim.data)) })
    const read = await expectError(client.legacy.odometer(id), Client.NotFoundError)
    assert.deepStrictEqual([read.status, read.code], [404, "NOT_FOUND"])
    assert.include(read.message, `'${id.slice(0, 40)}'...`)
  })

  it("CONNECTED_VEHICLE_LOG=debug prints the http attempt lines to stderr, without a secret; logLevel and logger options", async () => {
    const printed = (spy: { readonly mock: { readonly calls: ReadonlyArray<ReadonlyArray<unknown>> } }) =>
      spy.mock.calls.map((args) => util.format(...args))
    const stderr = vi.spyOn(console, "error").mockImplementation(() => {})
    const stdout = vi.spyOn(console, "log").mockImplementation(() => {})
    const previous = process.env["CONNECTED_VEHICLE_LOG"]
    const userId = busiestUser(sim.data)
    const vehicleId = sim.data.vehiclesOf(userId)[0]!
    try {
      // without the variable: nothing below info
      delete process.env["CONNECTED_VEHICLE_LOG"]
      {
        await using quiet = makeClient()
        await quiet.v3.webhooks.list({ pageSize: 1 })
      }
      assert.isFalse([...printed(stderr), ...printed(stdout)].some((line) => line.includes("http attempt")))

      process.env["CONNECTED_VEHICLE_LOG"] = "debug"
      {
        await using client = makeClient()
        await client.v3.webhooks.list({ pageSize: 1 })
        await client.legacy.login({ code: await consentCode(userId) })
        await client.legacy.odometer(vehicleId)
        await inject("/v3/webhooks", [{ _tag: "Status", status: 500 }])
        await expectError(client.v3.webhooks.list({ pageSize: 2 }, { maxRetries: 0 }), Client.ServerError)
      }
      const lines = printed(stderr).filter((line) => line.includes("http attempt"))
      assert.isTrue(lines.some((line) => line.includes("DEBUG") && line.includes("/oauth/token")), lines.join("\n"))
      assert.isTrue(lines.some((line) => line.includes("/v3/webhooks") && line.includes("status: 500")), lines.join("\n"))
      assert.isTrue(lines.some((line) => line.includes(`/v2.0/vehicles/${vehicleId}/odometer`)), lines.join("\n"))
      assert.isFalse(printed(stdout).some((line) => line.includes("http attempt")), "stdout is the application's")

      // the option wins over the variable; a logger receives the lines instead of stderr
      stderr.mockClear()
      const entries: Array<Client.LogEntry> = []
      process.env["CONNECTED_VEHICLE_LOG"] = "off"
      {
        await using client = makeClient({ logLevel: "debug", logger: (entry) => entries.push(entry) })
        await client.v3.connections.list({ pageSize: 1 })
      }
      const attempts = entries.filter((e) => e.message === "http attempt")
      assert.isTrue(attempts.some((e) => e.level === "debug" && String(e.annotations["url"]).endsWith("/oauth/token")))
      assert.isTrue(attempts.some((e) => e.annotations["status"] === 200 && String(e.annotations["url"]).includes("/v3/connections")))
      assert.isTrue(attempts.every((e) => e.date instanceof Date))
      assert.isFalse(printed(stderr).some((line) => line.includes("http attempt")))
      {
        await using off = makeClient()
        await off.v3.connections.list({ pageSize: 1 })
      }
      assert.isFalse(printed(stderr).some((line) => line.includes("http attempt")))

      // a bad level is an InvalidArgumentError naming it
      process.env["CONNECTED_VEHICLE_LOG"] = "verbose"
      const badEnv = (() => {
        try {
          makeClient()
        } catch (error) {
          return error
        }
      })()
      assert.instanceOf(badEnv, Client.InvalidArgumentError)
      assert.strictEqual((badEnv as Client.InvalidArgumentError).field, "CONNECTED_VEHICLE_LOG")
      delete process.env["CONNECTED_VEHICLE_LOG"]
      assert.throws(() => makeClient({ logLevel: "loud" as "debug" }), /logLevel/)

      const secrets = new Set([clientSecret, ...proxy.secrets()])
      assert.isTrue(secrets.size >= 3)
      const texts = [...lines, JSON.stringify(entries)]
      for (const text of texts) {
        for (const secret of secrets) assert.isFalse(text.includes(secret), `a secret in a log line: ${text.slice(0, 200)}`)
      }
    } finally {
      if (previous === undefined) delete process.env["CONNECTED_VEHICLE_LOG"]
      else process.env["CONNECTED_VEHICLE_LOG"] = previous
      stderr.mockRestore()
      stdout.mockRestore()
    }
  }, 60_000)

  it("no secret in any thrown error: message, stack, cause chain, JSON, util.inspect", async () => {
    // a user token given by the application, and errors made with it in use
    await using client = makeClient()
    const userId = busiestUser(sim.data)
    const code = await consentCode(userId)
    const exchange = await fetch(`${sim.url}/oauth/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${sim.clientId}:${clientSecret}`).toString("base64")}`
      },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri })
    })
    const body = await exchange.json() as { access_token: string; refresh_token: string; expires_in: number }
    await client.legacy.setUserToken({ accessToken: body.access_token, refreshToken: body.refresh_token, expiresIn: body.expires_in })
    const vehicleId = sim.data.vehiclesOf(userId)[0]!
    assert.isTrue((await client.legacy.odometer(vehicleId)).value.distance >= 0)
    const path = `/v2.0/vehicles/${vehicleId}/odometer`
    for (const status of [401, 401, 403, 429, 500]) {
      await inject(path, [{ _tag: "Status", status }])
    }
    await expectError(client.legacy.odometer(vehicleId, { maxRetries: 0 }), Client.AuthenticationError)
    await expectError(client.legacy.odometer(vehicleId, { maxRetries: 0 }), Client.PermissionDeniedError)
    await expectError(client.legacy.odometer(vehicleId, { maxRetries: 0 }), Client.RateLimitError)
    await expectError(client.legacy.odometer(vehicleId, { maxRetries: 0 }), Client.ServerError)
    await inject(path, [{ _tag: "Drop" }])
    // dropped once it arrived: it may have reached the service
    assert.isUndefined((await expectError(client.legacy.odometer(vehicleId, { maxRetries: 0 }), Client.ConnectionError)).sent)
    await inject("/oauth/token", [{ _tag: "Status", status: 500 }])
    await expectError(client.legacy.setUserToken({ accessToken: body.access_token, refreshToken: body.refresh_token, expiresIn: -1 }), Client.InvalidArgumentError)
    await client.legacy.setUserToken({ accessToken: "expired-access-token-value", refreshToken: body.refresh_token, expiresAt: 0 })
    // the refresh answered 500: a ServerError (with retries, the call would try again)
    await expectError(client.legacy.odometer(vehicleId, { maxRetries: 0 }), Client.ServerError)
    // the refresh token was rotated by the refresh after the first 401: invalid_grant, sign in again
    await expectError(client.legacy.odometer(vehicleId), Client.CredentialsError)

    const secrets = new Set([clientSecret, body.access_token, body.refresh_token, "expired-access-token-value", ...proxy.secrets()])
    assert.isTrue(secrets.size >= 4)
    assert.isTrue(errorsSeen.length >= 7, `${errorsSeen.length} errors`)
    assertNoSecretIn(errorsSeen, secrets)
  }, 60_000)
})
