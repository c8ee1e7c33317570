/**
 * `webhooks listen`'s output: a table row is one line whatever an event
 * holds (control characters escaped), and an event is acknowledged only
 * once its line is written: when stdout is closed (`| head -n 1`), the
 * delivery is answered 500 (the service retries it) and the command ends
 * with exit code 0 and no stack trace.
 */
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { WebhookEvent } from "@connected-vehicle/schema/WebhookEvent"
import * as Signature from "@connected-vehicle/webhooks/Signature"
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { jsonLine, line, rowOf } from "../src/Listen.ts"
import { printable } from "../src/Printable.ts"
import { start } from "./cli.ts"
import { handMeta } from "./events.ts"

const secret = "sample-listen-pipe-token-51c0"

const errorEvent = (eventId: string, code: string) => ({
  eventId,
  eventType: "VEHICLE_ERROR",
  vehicleId: "veh_hand\u009b2J",
  data: { errors: [{ type: "COMPATIBILITY", code, state: "ERROR", signals: [] }] },
  meta: handMeta
})

const decode = Schema.decodeUnknownSync(WebhookEvent)

describe("webhooks listen output", () => {
  it("a table row is one line: C0 and C1 control characters and DEL of the event are escaped", () => {
    const event = decode(errorEvent("evt_ctl\u007f", "ASLEEP\u001b[31mRED\nFAKE ROW\r\t")) as DeliveredEvent
    const text = line(rowOf(event, new Date(0)))
    assert.notMatch(text, /[\u0000-\u001f\u007f-\u009f]/)
    assert.include(text, "ASLEEP\\u001b[31mRED\\nFAKE ROW\\r\\t")
    assert.include(text, "evt_ctl\\u007f")
    assert.include(text, "veh_hand\\u009b2J")
    assert.strictEqual(printable("é ✓ plain"), "é ✓ plain")
  })

  it("bidirectional formatting characters and line separators are escaped in a row and in a JSON line; the JSON value is the same", () => {
    const sneaky = "ASLEEP\u202eDEVIRD\u2066x\u2069\u200f\u2028y\u0085"
    const event = decode(errorEvent("evt_bidi\u061c", sneaky)) as DeliveredEvent
    const active = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/
    const row = line(rowOf(event, new Date(0)))
    assert.notMatch(row, active)
    assert.include(row, "ASLEEP\\u202eDEVIRD\\u2066x\\u2069\\u200f\\u2028y\\u0085")
    const json = jsonLine(event)
    assert.notMatch(json, active)
    assert.notMatch(json, /[\u0000-\u001f]/)
    assert.deepStrictEqual(JSON.parse(json), JSON.parse(JSON.stringify(Schema.encodeSync(WebhookEvent)(event))))
    assert.strictEqual((JSON.parse(json) as { data: { errors: Array<{ code: string }> } }).data.errors[0]!.code, sneaky)
  })

  it("a signed delivery that is not JSON: the rejection on stderr quotes it escaped (no raw C1 or bidi character)", async () => {
    const started = await start(["webhooks", "listen", "--port", "0"], { env: { CONNECTED_VEHICLE_WEBHOOK_SECRET: secret } })
    const [, url] = await started.stderrMatch(/Listening for webhook deliveries on (http:\/\/127\.0\.0\.1:\d+)\//)
    const body = "nope \u009b31mC1RED \u202eevil"
    const response = await fetch(`${url}/webhooks`, { method: "POST", headers: { "sc-signature": Signature.sign(body, secret) }, body })
    assert.strictEqual(response.status, 400)
    const [rejected] = await started.stderrMatch(/webhook delivery rejected[^\n]*/)
    assert.notMatch(rejected!, /[\u007f-\u009f\u202a-\u202e]/)
    assert.include(rejected!, "\\u009b")
    started.child.kill()
  }, 60_000)

  it("with stdout closed (a pipe's reader went away), the next event is answered 500 and the command ends: exit 0, no stack", async () => {
    const started = await start(["webhooks", "listen", "--port", "0", "--json"], { env: { CONNECTED_VEHICLE_WEBHOOK_SECRET: secret } })
    const [, url] = await started.stderrMatch(/Listening for webhook deliveries on (http:\/\/127\.0\.0\.1:\d+)\//)
    const deliver = (eventId: string) => {
      const body = JSON.stringify(errorEvent(eventId, "ASLEEP"))
      return fetch(`${url}/webhooks`, { method: "POST", headers: { "sc-signature": Signature.sign(body, secret) }, body })
        .then(async (response) => ({ status: response.status, text: await response.text() }))
    }
    let stdout = ""
    const firstLine = new Promise<void>((resolve) =>
      started.child.stdout!.on("data", (chunk: string) => {
        stdout += chunk
        if (stdout.includes("\n")) resolve()
      })
    )
    assert.deepStrictEqual(await deliver("evt_pipe_1"), { status: 200, text: "{\"status\":\"handled\"}" })
    await firstLine
    assert.include(stdout, "evt_pipe_1")
    // what `head -n 1` does once it has its line
    started.child.stdout!.destroy()
    const unprinted = await deliver("evt_pipe_2")
    assert.strictEqual(unprinted.status, 500, unprinted.text)
    assert.include(unprinted.text, "HandlerFailed")
    const run = await started.done
    assert.strictEqual(run.code, 0, run.stderr)
    assert.include(run.stderr, "stdout was closed")
    assert.notMatch(run.stderr, /^\s+at /m)
    assert.notInclude(run.stderr, "Unhandled")
  })
})
