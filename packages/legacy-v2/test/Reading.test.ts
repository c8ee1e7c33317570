import { assert, describe, it } from "@effect/vitest"
import { DateTime, Exit, Result, Schema } from "effect"
import { DataAge } from "@connected-vehicle/schema/Legacy"
import { toReading } from "../src/internal/headers.ts"

const context = { requested: "metric", requestIdHeader: "x-request-id", method: "GET", url: "http://127.0.0.1/v2.0/vehicles/v/odometer", status: 200 } as const

describe("toReading", () => {
  it("sc-data-age decodes as the DataAge schema does, and one the schema refuses is an InvalidResponse", () => {
    for (
      const age of [
        "2025-12-31T23:00:00Z",
        "2025-12-31T23:00:00.123Z",
        "2025-12-31T23:00:00.1+02:00",
        "2025-12-31T23:00:00-05:30",
        "0000-01-01T00:00:00.000Z",
        "9999-12-31T23:59:59.999Z",
        "10000-01-01T00:00:00.000Z",
        "2025-02-30T00:00:00Z",
        "yesterday",
        ""
      ]
    ) {
      const reading = toReading({ distance: 1 }, { "sc-data-age": age }, context)
      const expected = Schema.decodeUnknownExit(DataAge)(age)
      if (Exit.isSuccess(expected)) {
        assert.isTrue(Result.isSuccess(reading), age)
        const dataAge = Result.getOrThrow(reading).dataAge
        assert.isTrue(dataAge !== undefined && DateTime.Equivalence(dataAge, expected.value), age)
      } else {
        assert.isTrue(Result.isFailure(reading), age)
      }
    }
  })
})
