import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Result } from "effect"
import { makeEnvelope } from "@connected-vehicle/schema/ServiceError"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import { decode } from "../src/Batch.ts"

const context = {
  vehicleUrl: "http://127.0.0.1:4010/v2.0/vehicles/veh_1",
  unitSystem: "metric" as const,
  requestIdHeader: "x-request-id",
  now: Date.parse("2026-01-01T00:00:00.000Z")
}

describe("Batch.decode", () => {
  it("finds an entry's request id whatever the case of its header's name and of the configured one", () => {
    for (const requestIdHeader of ["X-Request-Id", "x-request-id", ["SC-Request-Id", "X-REQUEST-ID"]] as const) {
      for (const name of ["X-Request-Id", "x-request-id"]) {
        const result = decode({ responses: [{ path: "/odometer", code: 200, body: { distance: 1 }, headers: { [name]: "req-42" } }] }, ["/odometer"], {
          ...context,
          requestIdHeader
        })
        const odometer = result["/odometer"]
        assert.strictEqual(Result.isSuccess(odometer) ? odometer.success.requestId : undefined, "req-42", `${String(requestIdHeader)} ${name}`)
      }
    }
  })

  it("builds each entry from its own code, body and headers", () => {
    const result = decode(
      {
        responses: [
          { path: "/odometer", code: 200, body: { distance: 12.5 }, headers: { "sc-data-age": "2025-12-31T23:00:00Z", "sc-unit-system": "imperial", "x-request-id": "r-1" } },
          { path: "/location", code: 429, body: makeEnvelope("RATE_LIMIT", "slow down"), headers: { "retry-after": "2" } },
          { path: "/vin", code: 502, body: "<html>bad gateway</html>", headers: {} },
          { path: "/engine/oil", code: 200, body: { lifeRemaining: 7 }, headers: {} },
          { path: "/tires/pressure", code: 200, body: { frontLeft: 1, frontRight: 1, backLeft: 1, backRight: 1 }, headers: { "sc-data-age": "yesterday" } }
        ]
      },
      ["/odometer", "/location", "/vin", "/engine/oil", "/tires/pressure", "/service/history"],
      context
    )
    const odometer = result["/odometer"]
    assert.isTrue(Result.isSuccess(odometer))
    if (Result.isSuccess(odometer)) {
      assert.strictEqual(odometer.success.value.distance, 12.5)
      assert.strictEqual(odometer.success.unitSystem, "imperial")
      assert.strictEqual(odometer.success.requestId, "r-1")
      assert.strictEqual(DateTime.formatIso(odometer.success.dataAge!), "2025-12-31T23:00:00.000Z")
    }
    const location = result["/location"]
    const rateLimited = Result.isFailure(location) ? reasonOf(location.failure) : undefined
    assert.strictEqual(rateLimited?._tag, "RateLimit")
    if (rateLimited?._tag === "RateLimit") {
      assert.strictEqual(Duration.toMillis(rateLimited.retryAfter!), 2000)
      assert.strictEqual(rateLimited.status, 429)
      assert.strictEqual(rateLimited.url, `${context.vehicleUrl}/location`)
    }
    const tag = (r: Result.Result<unknown, { readonly _tag: string }>) => Result.isFailure(r) ? reasonOf(r.failure)._tag : "Success"
    // a body that is not the envelope: its status decides (a 502 is Upstream, as the service's envelope of a 502)
    assert.strictEqual(tag(result["/vin"]), "Upstream")
    assert.strictEqual(tag(result["/engine/oil"]), "InvalidResponse")
    assert.strictEqual(tag(result["/tires/pressure"]), "InvalidResponse")
    // no entry for a requested path: the batch response is invalid, one ConnectedVehicleError as any other
    const history = result["/service/history"]
    const missing = Result.isFailure(history) ? history.failure : undefined
    assert.strictEqual(missing?._tag, "ConnectedVehicleError")
    assert.strictEqual(missing?.reason._tag, "InvalidResponse")
    if (missing?.reason._tag === "InvalidResponse") {
      assert.deepStrictEqual(
        [missing.reason.method, missing.reason.url, missing.reason.status, missing.reason.requestId],
        ["POST", `${context.vehicleUrl}/batch`, 200, undefined]
      )
      assert.include(missing.message, "no entry for /service/history")
      assert.isFalse(missing.isRetryable)
    }
  })

  it("a missing entry carries the batch response's status and request id", () => {
    const result = decode({ responses: [] }, ["/vin"], { ...context, response: { status: 207, requestId: "req-batch" } })
    const vin = result["/vin"]
    assert.isTrue(Result.isFailure(vin))
    if (Result.isFailure(vin)) {
      assert.deepStrictEqual([vin.failure.reason._tag, vin.failure.status, vin.failure.requestId], ["InvalidResponse", 207, "req-batch"])
    }
  })
})
