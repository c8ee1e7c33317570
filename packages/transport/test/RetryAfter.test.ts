import { assert, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import * as RetryAfter from "@connected-vehicle/transport/RetryAfter"

const now = Date.UTC(2025, 7, 26, 12, 0, 0)
const millis = (delay: Duration.Duration | undefined) => delay === undefined ? undefined : Duration.toMillis(delay)

describe("RetryAfter", () => {
  it("reads delay-seconds as a non-negative integer, a Duration", () => {
    assert.isTrue(Duration.equals(RetryAfter.parse("7", now)!, Duration.seconds(7)))
    assert.strictEqual(millis(RetryAfter.parse("0", now)), 0)
    assert.strictEqual(millis(RetryAfter.parse("7", now)), 7000)
    assert.strictEqual(millis(RetryAfter.parse(" 120 ", now)), 120_000)
  })

  it("reads the three HTTP-date formats of RFC 9110, relative to now", () => {
    assert.strictEqual(millis(RetryAfter.parse("Tue, 26 Aug 2025 12:00:30 GMT", now)), 30_000)
    assert.strictEqual(millis(RetryAfter.parse("Tuesday, 26-Aug-25 12:01:00 GMT", now)), 60_000)
    assert.strictEqual(millis(RetryAfter.parse("Tue Aug 26 12:00:05 2025", now)), 5_000)
    assert.strictEqual(millis(RetryAfter.parse("Tue, 26 Aug 2025 11:00:00 GMT", now)), 0)
  })

  it("ignores anything else", () => {
    for (const value of ["-1", "1.5", "", "soon", "2025-08-26T12:00:30Z", "Tue, 26 Aug 2025"]) {
      assert.isUndefined(RetryAfter.parse(value, now), JSON.stringify(value))
    }
  })

  it("a delay over the maximum (2^31 - 1 ms, setTimeout's longest) is that maximum, never Infinity", () => {
    const max = 2 ** 31 - 1
    assert.strictEqual(millis(RetryAfter.maxDelay), max)
    assert.strictEqual(millis(RetryAfter.parse("999999999", now)), max)
    assert.strictEqual(millis(RetryAfter.parse("9".repeat(400), now)), max)
    assert.strictEqual(millis(RetryAfter.parse("Fri, 26 Aug 2095 12:00:00 GMT", now)), max)
    assert.strictEqual(millis(RetryAfter.parse(String(max / 1000 | 0), now)), (max / 1000 | 0) * 1000)
    assert.strictEqual(millis(RetryAfter.fromHeaders({ "retry-after": "999999999" }, now)), max)
  })

  it("fromHeaders reads the retry-after header", () => {
    assert.strictEqual(millis(RetryAfter.fromHeaders({ "retry-after": "2" }, now)), 2000)
    assert.isUndefined(RetryAfter.fromHeaders({}, now))
  })

  it("fromHeaders measures an HTTP date from the response's Date (the server's clock), the local clock only without a valid one", () => {
    const date = "Tue, 26 Aug 2025 14:00:00 GMT" // the server's clock, 2 h ahead of `now`
    assert.strictEqual(millis(RetryAfter.fromHeaders({ "retry-after": "Tue, 26 Aug 2025 14:00:30 GMT", date }, now)), 30_000)
    // its clock 2 h behind
    assert.strictEqual(millis(RetryAfter.fromHeaders({ "retry-after": "Tue, 26 Aug 2025 10:00:30 GMT", date: "Tue, 26 Aug 2025 10:00:00 GMT" }, now)), 30_000)
    // a date before the response's: no wait
    assert.strictEqual(millis(RetryAfter.fromHeaders({ "retry-after": "Tue, 26 Aug 2025 13:59:00 GMT", date }, now)), 0)
    // delay-seconds are not changed by it
    assert.strictEqual(millis(RetryAfter.fromHeaders({ "retry-after": "5", date }, now)), 5_000)
    // no valid Date: from now
    for (const invalid of [undefined, "", "yesterday", "5"]) {
      const headers = invalid === undefined ? { "retry-after": "Tue, 26 Aug 2025 12:00:30 GMT" } : { "retry-after": "Tue, 26 Aug 2025 12:00:30 GMT", date: invalid }
      assert.strictEqual(millis(RetryAfter.fromHeaders(headers, now)), 30_000, String(invalid))
    }
  })

  it("fromHeaders of a header sent more than once (joined with \", \"): the longest valid delay among its values", () => {
    assert.strictEqual(millis(RetryAfter.fromHeaders({ "retry-after": "2, 3" }, now)), 3_000)
    assert.strictEqual(millis(RetryAfter.fromHeaders({ "retry-after": "3,2" }, now)), 3_000)
    assert.strictEqual(millis(RetryAfter.fromHeaders({ "retry-after": "Tue, 26 Aug 2025 12:00:30 GMT, 5" }, now)), 30_000)
    assert.strictEqual(millis(RetryAfter.fromHeaders({ "retry-after": "5, Tue, 26 Aug 2025 12:00:30 GMT" }, now)), 30_000)
    assert.strictEqual(millis(RetryAfter.fromHeaders({ "retry-after": "Tuesday, 26-Aug-25 12:01:00 GMT, Tue Aug 26 12:00:05 2025, 7" }, now)), 60_000)
    assert.strictEqual(millis(RetryAfter.fromHeaders({ "retry-after": "soon, 4, -1" }, now)), 4_000)
    assert.isUndefined(RetryAfter.fromHeaders({ "retry-after": "soon, -1" }, now))
  })
})

