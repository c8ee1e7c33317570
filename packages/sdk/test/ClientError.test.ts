import { assert, describe, it } from "@effect/vitest"
import { Cause, Duration } from "effect"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { MESSAGE_LIMIT } from "@connected-vehicle/schema/Message"
import { makeEnvelope } from "@connected-vehicle/schema/ServiceError"
import { fromEnvelope } from "@connected-vehicle/schema/ServiceReason"
import * as CallError from "@connected-vehicle/transport/ConnectedVehicleError"
import * as ClientError from "../src/ClientError.ts"

const failed = (reason: CallError.Reason) => new CallError.ConnectedVehicleError({ reason })

const answered = (type: Parameters<typeof makeEnvelope>[0], status: number) =>
  failed(fromEnvelope(makeEnvelope(type, "d", { status, requestId: "req_1" }), { status, retryAfter: Duration.millis(250) }))

describe("ClientError", () => {
  it("a reason picks its class (<reason>Error); status, request id, isRetryable, retryAfter and the envelope are kept", () => {
    const cases = [
      ["VALIDATION", 400, ClientError.ValidationError, false],
      ["AUTHENTICATION", 401, ClientError.AuthenticationError, false],
      ["AUTHENTICATION", 403, ClientError.PermissionDeniedError, false],
      ["RESOURCE_NOT_FOUND", 404, ClientError.NotFoundError, false],
      ["VEHICLE_STATE", 409, ClientError.VehicleStateError, false],
      ["COMPATIBILITY", 409, ClientError.CompatibilityError, false],
      ["RATE_LIMIT", 429, ClientError.RateLimitError, true],
      ["SERVER", 503, ClientError.ServerError, true],
      ["UPSTREAM", 502, ClientError.UpstreamError, true],
      ["BILLING", 402, ClientError.BillingError, false]
    ] as const
    for (const [type, status, expected, retryable] of cases) {
      const error = ClientError.fromEffectError(answered(type, status))
      assert.isTrue(error instanceof expected, `${status}`)
      assert.instanceOf(error, ClientError.ConnectedVehicleError)
      assert.instanceOf(error, Error)
      assert.strictEqual(error.name, expected.name)
      assert.strictEqual(error.reason, expected.name.replace(/Error$/, ""))
      assert.strictEqual(error.status, status)
      assert.strictEqual(error.requestId, "req_1")
      assert.strictEqual(error.type, type)
      assert.strictEqual(error.detail, "d")
      assert.strictEqual(error.isRetryable, retryable, `${status}`)
      assert.strictEqual((error.cause as CallError.ConnectedVehicleError)._tag, "ConnectedVehicleError")
    }
    // every reason of a response with a Retry-After keeps it, in milliseconds
    assert.strictEqual(ClientError.fromEffectError(answered("RATE_LIMIT", 429)).retryAfter, 250)
    assert.strictEqual(ClientError.fromEffectError(answered("SERVER", 503)).retryAfter, 250)
    const malformed = new CallError.MalformedBody({ method: "GET", url: "u", status: 502, description: "not JSON", retryAfter: Duration.seconds(2) })
    assert.strictEqual(ClientError.fromEffectError(failed(malformed)).retryAfter, 2_000)
    // a delay setTimeout waits as asked: finite, at most 2^31 - 1 ms, whatever the reason was built with
    for (const delay of [Duration.infinity, Duration.seconds(999_999_999)]) {
      const huge = fromEnvelope(makeEnvelope("SERVER", "d", { status: 503 }), { status: 503, retryAfter: delay })
      assert.strictEqual(ClientError.fromEffectError(failed(huge)).retryAfter, 2 ** 31 - 1)
    }
    const unanswered = fromEnvelope(makeEnvelope("SERVER", "d", { status: 500 }), { status: 500 })
    assert.isUndefined(ClientError.fromEffectError(failed(unanswered)).retryAfter)
  })

  it("each reason of a failed call, and each other error of the SDK, has its class", () => {
    const of = ClientError.fromEffectError
    const timeout = of(failed(new CallError.Timeout({ method: "GET", url: "u", timeout: Duration.millis(5) })))
    assert.instanceOf(timeout, ClientError.TimeoutError)
    assert.strictEqual(timeout.timeout, 5)
    assert.isTrue(timeout.isRetryable)
    assert.isUndefined(timeout.sent)
    // one that ran out while connecting: nothing was written
    assert.isFalse(of(failed(new CallError.Timeout({ method: "GET", url: "u", timeout: Duration.millis(5), sent: false }))).sent)
    assert.instanceOf(of(failed(new CallError.Connection({ method: "GET", url: "u", description: "reset" }))), ClientError.ConnectionError)
    assert.instanceOf(of(failed(new CallError.InvalidResponse({ method: "GET", url: "u", status: 200, description: "x" }))), ClientError.InvalidResponseError)
    const redirect = of(failed(new CallError.UnexpectedStatus({ method: "GET", url: "u", status: 302, location: "https://elsewhere" })))
    assert.instanceOf(redirect, ClientError.UnexpectedStatusError)
    assert.strictEqual(redirect.location, "https://elsewhere")
    assert.instanceOf(of(failed(new CallError.InvalidRequest({ method: "GET", path: "/x", description: "bad root" }))), ClientError.InvalidRequestError)
    assert.strictEqual(of(new InvalidArgument({ field: "vehicleId", message: "m" })).field, "vehicleId")
    assert.strictEqual(of({ _tag: "NotConnected", message: "m", vehicleId: "veh_1" }).vehicleId, "veh_1")
    const oauth = of(failed(new CallError.OAuth({ method: "POST", url: "u", status: 400, error: "invalid_grant" })))
    assert.instanceOf(oauth, ClientError.OAuthError)
    assert.strictEqual(oauth.code, "invalid_grant")
  })

  it("a failed token request is what happened to it, with the Credentials error as cause", () => {
    const noCredential = (cause: CallError.ConnectedVehicleError) =>
      failed(new CallError.Credentials({ description: "token request failed", ...(cause.status === undefined ? {} : { status: cause.status }), cause }))
    const refused = ClientError.fromEffectError(noCredential(failed(new CallError.Connection({ method: "POST", url: "u", description: "refused" }))))
    assert.instanceOf(refused, ClientError.ConnectionError)
    assert.strictEqual(refused.message, "The token request failed: POST u failed: refused")
    assert.strictEqual((refused.cause as CallError.ConnectedVehicleError).reason._tag, "Credentials")
    const wrongSecret = noCredential(failed(new CallError.OAuth({ method: "POST", url: "u", status: 401, error: "invalid_client" })))
    assert.instanceOf(ClientError.fromEffectError(wrongSecret), ClientError.AuthenticationError)
    const failing = noCredential(failed(new CallError.MalformedBody({ method: "POST", url: "u", status: 500, description: "not JSON" })))
    assert.instanceOf(ClientError.fromEffectError(failing), ClientError.ServerError)
    // retryable as the call saw it: a request the call may send again (transient), or not
    assert.isFalse(ClientError.fromEffectError(failing).isRetryable)
    const again = failed(new CallError.Credentials({ description: "token request failed", status: 503, transient: true, cause: failed(new CallError.MalformedBody({ method: "POST", url: "u", status: 503, description: "not JSON" })) }))
    assert.isTrue(ClientError.fromEffectError(again).isRetryable)
    // held by a Retry-After (no request sent): its status's class, its own message and what is left of the wait
    const answered = noCredential(failed(new CallError.OAuth({ method: "POST", url: "u", status: 429, error: "slow_down", retryAfter: Duration.seconds(60) })))
    const held = ClientError.fromEffectError(failed(new CallError.Credentials({ description: "no token request sent: wait", status: 429, retryAfter: Duration.seconds(40), cause: answered })))
    assert.instanceOf(held, ClientError.RateLimitError)
    assert.strictEqual(held.retryAfter, 40_000)
    assert.include(held.message, "no token request sent")
    const grant = noCredential(failed(new CallError.OAuth({ method: "POST", url: "u", status: 400, error: "invalid_grant" })))
    const refusedGrant = ClientError.fromEffectError(grant)
    assert.instanceOf(refusedGrant, ClientError.CredentialsError)
    assert.deepStrictEqual([refusedGrant.status, refusedGrant.code], [400, "invalid_grant"])
  })

  it("a tag that is a key of Object.prototype, or no tag, is the base class, never a crash", () => {
    for (const tag of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      const error = ClientError.fromEffectError({ _tag: tag, message: "m" })
      assert.strictEqual(error.constructor, ClientError.ConnectedVehicleError, tag)
      assert.strictEqual(error.reason, "Unknown")
    }
    const unexpected = ClientError.fromEffectError(new RangeError("boom"))
    assert.strictEqual(unexpected.message, "Unexpected failure")
    assert.instanceOf(unexpected.cause, RangeError)
    assert.instanceOf(ClientError.fromCause(Cause.interrupt(), "stop"), ClientError.AbortError)
  })

  it("a server's long text with an escape sequence: the client error's message is the Effect error's, escaped and at most 2,048 characters", () => {
    const hostile = "\u001b[31m" + "x".repeat(5_000_000)
    const errors = [
      failed(fromEnvelope({ errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail: hostile }] }, { status: 404 })),
      failed(new CallError.OAuth({ method: "POST", url: "u", status: 400, error: "invalid_request", errorDescription: hostile })),
      failed(new CallError.Connection({ method: "GET", url: "u", description: hostile }))
    ]
    for (const error of errors) {
      const client = ClientError.fromEffectError(error)
      assert.strictEqual(client.message, error.message)
      assert.strictEqual(client.message, error.reason.message)
      assert.isAtMost(client.message.length, MESSAGE_LIMIT)
      assert.notInclude(client.message, "\u001b")
      assert.notInclude(client.stack!, "\u001b")
    }
    // a failed token request says so, within the same limit
    const token = ClientError.fromEffectError(failed(new CallError.Credentials({ description: "token request failed", cause: errors[2] })))
    assert.isTrue(token.message.startsWith("The token request failed: GET u failed: \\u001b[31mxxx"))
    assert.isAtMost(token.message.length, MESSAGE_LIMIT)
  })
})
