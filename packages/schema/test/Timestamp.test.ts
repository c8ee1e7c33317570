import { assert, describe, it } from "@effect/vitest"
import { DateTime, Equal, Hash, Schema } from "effect"
import { Timestamp } from "../src/Common.ts"
import { parseIsoMillis } from "../src/internal/timestamp.ts"
import { seeded } from "./seed.ts"

// What Timestamp accepted before the digit-by-digit reading: the pattern, then Date.parse.
const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/
const reference = (input: string) => isoPattern.test(input) ? Date.parse(input) : Number.NaN

const pad = (n: number, width: number) => String(n).padStart(width, "0")

describe("Timestamp parsing", () => {
  it("reads every form as Date.parse does, valid or not", () => {
    // a deterministic sweep over field values around every limit, in each form
    const zones = ["Z", "z", "+01:00", "-23:59", "", "+24:00"]
    const fractions = ["", ".5", ".123", ".1234", ".", ".12a"]
    let n = 0
    for (const year of [0, 1, 99, 100, 1900, 1970, 2000, 2024, 2025, 2100, 9999]) {
      for (const month of [0, 1, 2, 4, 12, 13]) {
        for (const day of [0, 1, 28, 29, 30, 31, 32]) {
          for (const time of ["00:00:00", "23:59:59", "24:00:00", "12:60:00", "12:00:60", "1a:00:00"]) {
            const zone = zones[n % zones.length]!
            const fraction = fractions[(n >> 1) % fractions.length]!
            n++
            const input = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${time}${fraction}${zone}`
            assert.isTrue(Object.is(parseIsoMillis(input), reference(input)), input)
            const canonical = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${time}.123Z`
            assert.isTrue(Object.is(parseIsoMillis(canonical), reference(canonical)), canonical)
          }
        }
      }
    }
    for (const input of ["", "2025-08-26", "2025-08-26T10:00:00.000", "2025-08-26 10:00:00.000Z", "+02025-08-26T10:00:00.000Z"]) {
      assert.isTrue(Object.is(parseIsoMillis(input), reference(input)), input)
    }
  })

  it.prop("agrees with Date.parse on any instant's ISO string", { millis: Schema.Int.check(Schema.isBetween({ minimum: -62_167_219_200_000, maximum: 253_402_300_799_999 })) }, ({ millis }) => {
    const iso = new Date(millis).toISOString()
    assert.strictEqual(parseIsoMillis(iso), millis)
    assert.strictEqual(parseIsoMillis(iso.replace(/\.\d{3}Z$/, "Z")), Date.parse(iso.replace(/\.\d{3}Z$/, "Z")))
  }, { arbitrary: seeded({}) })

  it("invalid dates and out-of-range instants still fail the decode", () => {
    const decode = Schema.decodeUnknownExit(Timestamp)
    for (const input of ["2025-13-01T10:00:00.000Z", "2025-08-26T25:00:00.000Z", "yesterday", "0000-01-01T00:00:00.000+01:00"]) {
      assert.isTrue(decode(input)._tag === "Failure", input)
    }
    const utc = Schema.decodeUnknownSync(Timestamp)("2025-08-26T10:00:00.123Z")
    assert.isTrue(DateTime.isUtc(utc))
    assert.strictEqual(DateTime.toEpochMillis(utc), Date.parse("2025-08-26T10:00:00.123Z"))
  })
})

describe("Timestamp values", () => {
  it("a decoded timestamp is Effect's DateTime.Utc: prototype, keys, equality, hash, parts, zones, JSON", () => {
    for (const input of ["2025-08-26T10:00:00.123Z", "1969-07-20T20:17:40Z", "2024-02-29T23:59:59.999+05:30", "0000-01-01T00:00:00.000Z"]) {
      const utc = Schema.decodeUnknownSync(Timestamp)(input)
      const reference = DateTime.makeUnsafe(Date.parse(input))
      assert.strictEqual(Object.getPrototypeOf(utc), Object.getPrototypeOf(reference), input)
      assert.deepStrictEqual(Object.keys(utc), Object.keys(reference), input)
      assert.isTrue(DateTime.isDateTime(utc) && DateTime.isUtc(utc), input)
      assert.isTrue(Equal.equals(utc, reference), input)
      assert.strictEqual(Hash.hash(utc), Hash.hash(reference), input)
      assert.deepStrictEqual(utc, reference, input)
      assert.strictEqual(String(utc), String(reference), input)
      assert.strictEqual(JSON.stringify(utc), JSON.stringify(reference), input)
      assert.deepStrictEqual(DateTime.toPartsUtc(utc), DateTime.toPartsUtc(reference), input)
      assert.strictEqual(DateTime.getPartUtc(utc, "weekDay"), DateTime.getPartUtc(reference, "weekDay"), input)
      // the parts are kept after their first use, as on Effect's own values
      assert.strictEqual(DateTime.toPartsUtc(utc), DateTime.toPartsUtc(utc), input)
      assert.isTrue(Equal.equals(utc, reference), input)
      const zoned = DateTime.setZone(utc, DateTime.zoneMakeOffset(2 * 60 * 60 * 1000))
      assert.strictEqual(DateTime.formatIsoOffset(zoned), DateTime.formatIsoOffset(DateTime.setZone(reference, DateTime.zoneMakeOffset(2 * 60 * 60 * 1000))), input)
      assert.strictEqual(DateTime.toEpochMillis(DateTime.add(utc, { minutes: 5 })) - DateTime.toEpochMillis(utc), 5 * 60 * 1000, input)
    }
  })
})

describe("Timestamp encoding", () => {
  it("an instant outside the years 0000 to 9999 fails the encode, an instant within them round-trips", () => {
    const encode = Schema.encodeUnknownExit(Timestamp)
    assert.isTrue(encode(DateTime.makeUnsafe(Date.parse("+010000-01-01T00:00:00.000Z")))._tag === "Failure")
    assert.isTrue(encode(DateTime.makeUnsafe(Date.parse("-000001-12-31T23:59:59.999Z")))._tag === "Failure")
    const utc = Schema.decodeUnknownSync(Timestamp)("9999-12-31T23:59:59.999Z")
    assert.strictEqual(Schema.encodeSync(Timestamp)(utc), "9999-12-31T23:59:59.999Z")
  })
})
