import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { decode } from "../src/Batch.ts"

describe("legacy request ids", () => {
  it("a batch entry's request id: sc-request-id first, else x-request-id, with the transport's default headers", () => {
    const result = decode(
      {
        responses: [
          { path: "/odometer", code: 200, body: { distance: 1 }, headers: { "x-request-id": "x-1", "sc-request-id": "sc-1" } },
          { path: "/vin", code: 200, body: { vin: "1FTFW1E50NFA00001" }, headers: { "x-request-id": "x-2" } }
        ]
      },
      ["/odometer", "/vin"],
      {
        vehicleUrl: "http://127.0.0.1:4010/v2.0/vehicles/veh_1",
        unitSystem: "metric",
        requestIdHeader: ["sc-request-id", "x-request-id"],
        now: 0
      }
    )
    const odometer = result["/odometer"]
    const vin = result["/vin"]
    assert.strictEqual(Result.isSuccess(odometer) ? odometer.success.requestId : odometer.failure._tag, "sc-1")
    assert.strictEqual(Result.isSuccess(vin) ? vin.success.requestId : vin.failure._tag, "x-2")
  })
})
