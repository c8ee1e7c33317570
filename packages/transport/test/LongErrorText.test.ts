/**
 * A server's error text of any length: a `detail` of 16 MB of entities
 * (normalized by a forward scan, in time and memory linear in its length) is
 * the typed error without the secret, under a small heap; an error's
 * `message`, and its reason's, are at most 2,048 characters, what is cut
 * said included (escaped, never cut inside an escape or a surrogate pair),
 * while the reason's fields keep it whole.
 */
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { ManagementApi } from "@connected-vehicle/schema/Api"
import { escapeControls, MESSAGE_LIMIT } from "@connected-vehicle/schema/Message"
import type { ServiceReason } from "@connected-vehicle/schema/ServiceReason"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "../src/UndiciHttpClient.ts"
import { server } from "./utils.ts"

/** The fixture's outcome: it runs the call in a process of a 200 MB heap. */
const runFixture = () =>
  Effect.promise(() =>
    new Promise<{ readonly error: Error | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
      const fixture = fileURLToPath(new URL("./fixtures/entityDetail.ts", import.meta.url))
      execFile(process.execPath, ["--max-old-space-size=200", fixture], { timeout: 120_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) =>
        resolve({ error, stdout, stderr }))
    })
  )

const token = "tok-LONG-ERROR-TEXT-0123"

const layer = (origin: string) =>
  Transport.layer.pipe(
    Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), UndiciHttpClient.layer()]),
    Layer.merge(Credentials.layerStatic(Redacted.make(token)))
  )

const listWebhooks = Effect.flatMap(Transport.client(ManagementApi, "webhooks"), (webhooks) => webhooks.list({ query: { page: 1, pageSize: 10 } }))

const notFound = (detail: string) =>
  server((request, response) => {
    request.resume()
    response.writeHead(404, { "content-type": "application/json" })
    response.end(JSON.stringify({ errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail }] }))
  })

describe("a long error text", () => {
  it.live("a 404 whose detail is 16 MB of entities, the bearer spelled as entities at its end: NotFound, no secret, within a 200 MB heap", () =>
    Effect.gen(function*() {
      const { error, stderr, stdout } = yield* runFixture()
      assert.isNull(error, `the process failed: ${stderr.slice(-2_000)}`)
      const outcome = JSON.parse(stdout)
      assert.isAbove(outcome.bodyLength, 16_000_000)
      assert.strictEqual(outcome.tag, "NotFound")
      assert.strictEqual(outcome.status, 404)
      // the detail is kept whole, normalized (each `&#x25;` read as `%`), the bearer cut
      assert.strictEqual(outcome.detailLength, 2_790_000 + "<redacted>".length)
      assert.strictEqual(outcome.detailEnd, "%%%%%%%%%%<redacted>")
      assert.isFalse(outcome.secretInDetail)
      assert.isFalse(outcome.secretInMessage)
      assert.strictEqual(outcome.messageStart, "404 NOT_FOUND: %%%%%")
      assert.isAtMost(outcome.messageLength, MESSAGE_LIMIT)
      assert.match(outcome.messageEnd, /%… \(\d+ more characters\)$/)
    }), 150_000)

  it.live("the message shows 2,048 characters of a long detail, escaped and cut between characters; the fields keep it whole", () =>
    Effect.gen(function*() {
      // control characters (6 characters once escaped) and emoji (a surrogate pair) all along, the bearer echoed
      const detail = `${"ab\u001b\ud83d\ude00\n".repeat(20_000)} echo ${token}`
      const service = yield* notFound(detail)
      const error = yield* Effect.flip(listWebhooks.pipe(Effect.provide(layer(service.origin))))
      const reason = reasonOf(error) as ServiceReason
      assert.strictEqual(reason._tag, "NotFound")
      assert.strictEqual(reason.detail, `${"ab\u001b\ud83d\ude00\n".repeat(20_000)} echo <redacted>`)
      const suffix = /… \((\d+) more characters?\)$/.exec(error.message)
      assert.isNotNull(suffix, error.message.slice(-100))
      const shown = error.message.slice(0, suffix!.index)
      assert.isAtMost(error.message.length, MESSAGE_LIMIT)
      assert.isAtLeast(shown.length, MESSAGE_LIMIT - 6 - suffix![0].length)
      // the reason's message is the error's: the escaped start of the text, cut where a character ends
      assert.strictEqual(reason.message, error.message)
      const left = Number(suffix![1])
      const text = `404 NOT_FOUND: ${reason.detail}`
      assert.strictEqual(shown, escapeControls(text.slice(0, text.length - left)))
      assert.notInclude(error.message, "\u001b")
      assert.notInclude(error.message, token)
      // a message under the limit is shown whole
      const short = yield* notFound("short \u001b detail")
      const whole = yield* Effect.flip(listWebhooks.pipe(Effect.provide(layer(short.origin))))
      assert.strictEqual(whole.message, "404 NOT_FOUND: short \\u001b detail")
    }).pipe(Effect.scoped))
})
