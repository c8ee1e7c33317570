/**
 * The signals handlers write their JSON directly (not through the contract's
 * encoder) and reuse a page within one clock millisecond: the bytes must be
 * exactly what the encoder writes, and move with the clock.
 */
import { SignalResponse, SignalsPage } from "@connected-vehicle/schema/Signal"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { FetchHttpClient } from "effect/http"
import { layer as simulatorLayer, Simulator } from "../src/Simulator.ts"
import { appToken, bearer, call } from "./helpers.ts"

const Loopback = Layer.mergeAll(simulatorLayer({ seed: 5, connections: 30, vehicles: 30, users: 9 }), FetchHttpClient.layer)

/** The bytes the contract's encoder writes for the value these bytes decode to. */
const encoderBytes = (schema: Schema.Codec<any, any>, text: string) =>
  JSON.stringify(Schema.encodeSync(schema)(Schema.decodeUnknownSync(schema)(JSON.parse(text))))

layer(Loopback)("signals wire form", (it) => {
  it.effect("list and get bytes equal the contract encoder's, for every connected vehicle and paging", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      let checked = 0
      for (const [i, vehicleId] of sim.data.vehicleIds.slice(0, sim.data.connectionCount).entries()) {
        const token = yield* appToken
        const headers = { ...bearer(token), "sc-user-id": sim.data.connectionOf(vehicleId)!.userId }
        for (const query of ["", "?pageSize=100", "?page=2&pageSize=3", "?page=40"]) {
          const list = yield* call("GET", `/v3/vehicles/${vehicleId}/signals${query}`, { headers })
          assert.strictEqual(list.status, 200, list.text)
          assert.strictEqual(list.headers["content-type"], "application/json")
          assert.strictEqual(list.text, encoderBytes(SignalsPage, list.text))
          checked++
        }
        // one the connection may read (the others are a 403)
        const readable = sim.data.vehicle(vehicleId)!.signalCodes.filter((c) => sim.data.signalStatus(vehicleId, c) !== "ERROR")
        const code = readable[i % Math.min(3, readable.length)]!
        const one = yield* call("GET", `/v3/vehicles/${vehicleId}/signals/${code}`, { headers })
        assert.strictEqual(one.status, 200, one.text)
        assert.strictEqual(one.text, encoderBytes(SignalResponse, one.text))
        yield* TestClock.adjust("37 minutes")
      }
      assert.strictEqual(checked, 4 * sim.data.connectionCount)
    }))

  it.effect("a page is reused within one clock millisecond only", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const token = yield* appToken
      const vehicleId = sim.data.vehicleIds[1]!
      const headers = { ...bearer(token), "sc-user-id": sim.data.connectionOf(vehicleId)!.userId }
      const path = `/v3/vehicles/${vehicleId}/signals?pageSize=5`
      const first = yield* call("GET", path, { headers })
      const again = yield* call("GET", path, { headers })
      assert.strictEqual(again.text, first.text)
      yield* TestClock.adjust("1 millis")
      const later = yield* call("GET", path, { headers })
      assert.notStrictEqual(later.text, first.text)
      assert.strictEqual(
        Date.parse(later.json.data[0].meta.retrievedAt) - Date.parse(first.json.data[0].meta.retrievedAt),
        1
      )
      // Another user of the same URL is still checked before the page is reused.
      const other = sim.data.connectionOf(sim.data.vehicleIds[2]!)!.userId
      const refused = yield* call("GET", path, { headers: { ...bearer(token), "sc-user-id": other } })
      assert.strictEqual(refused.status, 403, refused.text)
    }))
})
