/**
 * A request whose head was parsed (so the application logged it) and whose
 * body then fails (a bad chunk, a body that never ends) is answered outside
 * the application: with that request's own id, and its log entry gets the
 * answer's status, never that of the application's own answer, which is not
 * sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { isEnvelope } from "./helpers.ts"
import { openRaw, rawRequest } from "./raw.ts"

const BATCH = "/v2.0/vehicles/00000000-0000-0000-0000-000000000000/batch"

const answeredAndLogged = (body: { readonly headers: Record<string, string>; readonly bytes: string }, status: number) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    const response = yield* Effect.promise(async () => {
      const connection = await openRaw(sim.url)
      connection.send(rawRequest("POST", BATCH, { "content-type": "application/json", ...body.headers }, body.bytes))
      const response = await connection.next(20_000)
      await connection.closed
      return response
    })
    assert.strictEqual(response.status, status, response.body)
    const json = JSON.parse(response.body)
    assert.isTrue(isEnvelope(json), response.body)
    const requestId = response.headers["x-request-id"]
    assert.strictEqual(json.errors[0].meta.debug.requestId, requestId)
    assert.strictEqual(response.headers["sc-request-id"], requestId)
    // the application's own handler may still be running (its answer is never sent): it must not change the entry
    yield* Effect.sleep("300 millis")
    const logged = (yield* sim.requests).filter((entry) => entry.path === BATCH)
    assert.deepStrictEqual(logged.map((entry) => [entry.requestId, entry.status]), [[requestId, status]])
  }).pipe(Effect.provide(simulatorLayer({ seed: 13, headersTimeout: "300 millis", requestTimeout: "600 millis" })))

describe("a body that fails after the head was logged", () => {
  it.live("a bad chunk: 400 with the logged request's id, logged 400", () =>
    answeredAndLogged({ headers: { "transfer-encoding": "chunked" }, bytes: "zz\r\n{}\r\n0\r\n\r\n" }, 400))

  it.live("a body that never ends: 408 with the logged request's id, logged 408", () =>
    answeredAndLogged({ headers: { "content-length": "100" }, bytes: "{\"requests\"" }, 408))
})
