import { assert, describe, it } from "@effect/vitest"
import { Cause } from "effect"
import * as ClientError from "../src/ClientError.ts"

const envelope = (status: number, extra: Record<string, unknown> = {}) => ({
  _tag: "SomeServiceError",
  message: `${status} failed`,
  status,
  type: "SERVER",
  code: "X",
  requestId: "req_1",
  ...extra
})

describe("ClientError", () => {
  it("an envelope's status picks the class; its fields are kept", () => {
    const cases: ReadonlyArray<readonly [number, ReadonlyArray<new(...args: any) => unknown>]> = [
      [400, [ClientError.BadRequestError]],
      [401, [ClientError.AuthenticationError]],
      [403, [ClientError.PermissionDeniedError, ClientError.AuthenticationError]],
      [404, [ClientError.NotFoundError]],
      [409, [ClientError.ConflictError]],
      [429, [ClientError.RateLimitError]],
      [503, [ClientError.ServerError]],
      [418, [ClientError.ApiError]]
    ]
    for (const [status, classes] of cases) {
      const error = ClientError.fromEffectError(envelope(status, { retryAfterMillis: 250, detail: "d" }))
      for (const c of [...classes, ClientError.ApiError, ClientError.ConnectedVehicleError]) assert.instanceOf(error, c, `${status}`)
      assert.strictEqual(error.status, status)
      assert.strictEqual(error.requestId, "req_1")
      assert.strictEqual(error.tag, "SomeServiceError")
      assert.strictEqual((error as ClientError.ApiError).detail, "d")
    }
    const limited = ClientError.fromEffectError(envelope(429, { retryAfterMillis: 250 }))
    assert.strictEqual((limited as ClientError.RateLimitError).retryAfterMillis, 250)
  })

  it("each tag of the SDK's errors has its class", () => {
    const of = (error: Record<string, unknown>) => ClientError.fromEffectError({ message: "m", ...error })
    assert.instanceOf(of({ _tag: "RequestTimeout", timeoutMillis: 5 }), ClientError.TimeoutError)
    assert.strictEqual((of({ _tag: "RequestTimeout", timeoutMillis: 5 }) as ClientError.TimeoutError).timeoutMillis, 5)
    assert.instanceOf(of({ _tag: "TransportFailure" }), ClientError.ConnectionError)
    assert.instanceOf(of({ _tag: "ResponseDecodeError" }), ClientError.ResponseValidationError)
    assert.strictEqual((of({ _tag: "InvalidArgument", field: "vehicleId" }) as ClientError.InvalidArgumentError).field, "vehicleId")
    assert.instanceOf(of({ _tag: "MissingRedirectUri" }), ClientError.CredentialsError)
    assert.strictEqual((of({ _tag: "NotConnected", vehicleId: "veh_1" }) as ClientError.NotConnectedError).vehicleId, "veh_1")
    assert.instanceOf(of({ _tag: "OAuthError", error: "invalid_client", status: 401 }), ClientError.AuthenticationError)
    const refused = of({ _tag: "CredentialsError", cause: { _tag: "TransportFailure", message: "refused" } })
    assert.instanceOf(refused, ClientError.ConnectionError)
    assert.strictEqual(refused.message, "The token request failed: refused")
  })

  it("a tag that is a key of Object.prototype, or no tag, is the base class, never a crash", () => {
    for (const tag of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      const error = ClientError.fromEffectError({ _tag: tag, message: "m" })
      assert.strictEqual(error.constructor, ClientError.ConnectedVehicleError, tag)
    }
    const unexpected = ClientError.fromEffectError(new RangeError("boom"))
    assert.strictEqual(unexpected.message, "Unexpected failure")
    assert.instanceOf(unexpected.cause, RangeError)
    assert.instanceOf(ClientError.fromCause(Cause.interrupt(), "stop"), ClientError.AbortError)
  })
})
