/**
 * Every reason's message is escaped and bounded when the reason is made
 * (`boundedMessage` of `@connected-vehicle/schema/Message`), not only the
 * error's: `Cause.pretty` prints the error's stack and then its cause's, the
 * reason, so that a server's `detail` of 5 MB holding an escape sequence
 * reached a log whole through `Effect.logError(cause)`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Layer, Redacted } from "effect"
import { AuthorizationApi, ManagementApi } from "@connected-vehicle/schema/Api"
import { MESSAGE_LIMIT } from "@connected-vehicle/schema/Message"
import { NotFound } from "@connected-vehicle/schema/ServiceReason"
import {
  Connection,
  ConnectedVehicleError,
  Credentials as NoCredential,
  InvalidRequest,
  InvalidResponse,
  MalformedBody,
  OAuth,
  reasonOf,
  Timeout,
  UnexpectedStatus
} from "@connected-vehicle/transport/ConnectedVehicleError"
import type { Reason } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "../src/UndiciHttpClient.ts"
import { server } from "./utils.ts"

/** What a server may send: an escape sequence that sets a color, then 5 MB. */
const hostile = "\u001b[31m" + "x".repeat(5_000_000)

const layer = (origin: string) =>
  Transport.layer.pipe(
    Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), UndiciHttpClient.layer()]),
    Layer.merge(Credentials.layerStatic(Redacted.make("tok-REASON-MESSAGE")))
  )

/** A server that answers every request with `status` and the JSON `body`. */
const answering = (status: number, body: unknown) => {
  const text = JSON.stringify(body)
  return server((request, response) => {
    request.resume()
    response.writeHead(status, { "content-type": "application/json" })
    response.end(text)
  })
}

const getWebhook = Effect.flatMap(Transport.client(ManagementApi, "webhooks"), (webhooks) => webhooks.get({ params: { webhookId: "wh_1" } }))

const refresh = Effect.flatMap(Transport.publicClient(AuthorizationApi, "oauth"), (oauth) =>
  oauth.token({
    headers: { authorization: `Basic ${Buffer.from("the-client:the-secret").toString("base64")}` },
    payload: { grant_type: "refresh_token", refresh_token: "rt-1" }
  }))

/** The failure's `Cause.pretty` is a few KB with no escape character; its reason's message, and its stack's first line, at most the limit. */
const assertShownBounded = (cause: Cause.Cause<unknown>, reason: Reason) => {
  const pretty = Cause.pretty(cause)
  assert.notInclude(pretty, "\u001b")
  // the error's message and its reason's (2,048 each), and two stacks
  assert.isBelow(pretty.length, 2 * MESSAGE_LIMIT + 8_000, pretty.slice(0, 200))
  assert.isAtMost(reason.message.length, MESSAGE_LIMIT)
  assert.notInclude(reason.message, "\u001b")
  assert.isAtMost(reason.stack!.split("\n")[0]!.length, MESSAGE_LIMIT + reason._tag.length + 2)
  assert.notInclude(reason.stack!, "\u001b")
}

describe("every reason's message is escaped and bounded", () => {
  it.live("a 404 whose detail is an escape sequence and 5 MB, over loopback: Cause.pretty a few KB, no escape character; the detail kept", () =>
    Effect.gen(function*() {
      const service = yield* answering(404, {
        errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail: hostile }]
      })
      const exit = yield* Effect.exit(getWebhook.pipe(Effect.provide(layer(service.origin))))
      assert.isTrue(Exit.isFailure(exit))
      if (!Exit.isFailure(exit)) return
      const error = Cause.squash(exit.cause) as ConnectedVehicleError
      const reason = reasonOf(error)
      assert.strictEqual(reason._tag, "NotFound")
      assertShownBounded(exit.cause, reason)
      assert.isTrue(reason.message.startsWith("404 NOT_FOUND: \\u001b[31mxxx"))
      assert.strictEqual(error.message, reason.message)
      assert.strictEqual(reason._tag === "NotFound" ? reason.detail : undefined, hostile)
    }).pipe(Effect.scoped))

  it.live("the token endpoint's error_description, over loopback: an OAuth reason (400) and a RateLimit (429), both bounded", () =>
    Effect.gen(function*() {
      for (const [status, tag] of [[400, "OAuth"], [429, "RateLimit"]] as const) {
        const service = yield* answering(status, { error: "invalid_grant", error_description: hostile })
        const exit = yield* Effect.exit(refresh.pipe(Effect.provide(layer(service.origin))))
        assert.isTrue(Exit.isFailure(exit))
        if (!Exit.isFailure(exit)) return
        const reason = reasonOf(Cause.squash(exit.cause) as ConnectedVehicleError)
        assert.strictEqual(reason._tag, tag)
        assertShownBounded(exit.cause, reason)
        assert.isTrue(reason.message.startsWith(`${status} invalid_grant: \\u001b[31mxxx`), reason.message.slice(0, 40))
        const kept = reason._tag === "OAuth" ? reason.errorDescription : reason._tag === "RateLimit" ? reason.detail : undefined
        assert.strictEqual(kept, hostile)
      }
    }).pipe(Effect.scoped))

  it.effect("each transport reason made with such a text: its message and Cause.pretty bounded, its fields whole", () =>
    Effect.gen(function*() {
      const http = { method: "GET", url: "https://api.example.test/v3/webhooks", status: 400 }
      const reasons: ReadonlyArray<readonly [Reason, string]> = [
        [new Timeout({ method: "GET", url: `https://api.example.test/${hostile}`, timeout: Duration.seconds(1) }), "url"],
        [new Connection({ method: "GET", url: http.url, description: hostile }), "description"],
        [new MalformedBody({ ...http, description: hostile }), "description"],
        [new UnexpectedStatus({ ...http, status: 302, location: `https://elsewhere.example/${hostile}` }), "location"],
        [new InvalidResponse({ ...http, status: 200, description: hostile }), "description"],
        [new InvalidRequest({ method: "GET", path: "/v3/webhooks", description: hostile }), "description"],
        [new NoCredential({ description: hostile }), "description"],
        [new OAuth({ ...http, error: `invalid_grant${hostile}` }), "error"]
      ]
      for (const [reason, field] of reasons) {
        const cause = Cause.fail(new ConnectedVehicleError({ reason }))
        assertShownBounded(cause, reason)
        assert.include((reason as unknown as Record<string, string>)[field], hostile, reason._tag)
        // read again: the same message
        assert.strictEqual(reason.message, reason.message)
      }
    }))

  it("a reason made with another message: the error's message bounds it by the same rule", () => {
    const reason = new NotFound({ message: hostile, status: 404, type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail: "", errors: [] })
    const error = new ConnectedVehicleError({ reason })
    assert.isAtMost(error.message.length, MESSAGE_LIMIT)
    assert.isTrue(error.message.startsWith("\\u001b[31mxxx"))
  })
})
