import { assert, describe, it } from "@effect/vitest"
import * as ConnectedVehicleError from "@connected-vehicle/transport/ConnectedVehicleError"
import { redactUrl } from "@connected-vehicle/transport/internal/url"

describe("what the SDK logs", () => {
  it("redactUrl hides the value of credential-like query parameters only", () => {
    assert.strictEqual(redactUrl("http://h/p"), "http://h/p")
    assert.strictEqual(
      redactUrl("http://h/p?page=2&access_token=a&client_secret=b&code=c&state=d&API-KEY=e&filter%5Bmode%5D=live&X-Amz-Signature=f"),
      "http://h/p?page=2&access_token=<redacted>&client_secret=<redacted>&code=<redacted>&state=<redacted>&API-KEY=<redacted>&filter%5Bmode%5D=live&X-Amz-Signature=<redacted>"
    )
    assert.strictEqual(redactUrl("http://h/p?refresh%5Ftoken=x&flag#frag"), "http://h/p?refresh%5Ftoken=<redacted>&flag#frag")
  })

  it("redactUrl hides credential-like parameters of the fragment too (an implicit OAuth redirect), and removes nothing else", () => {
    assert.strictEqual(
      redactUrl("https://app.example/cb#access_token=t0k&expires_in=7200&state=s"),
      "https://app.example/cb#access_token=<redacted>&expires_in=7200&state=<redacted>"
    )
    assert.strictEqual(redactUrl("https://app.example/cb?page=2#section"), "https://app.example/cb?page=2#section")
    assert.strictEqual(redactUrl("https://app.example/a#b?code=c"), "https://app.example/a#b?code=<redacted>")
    assert.strictEqual(redactUrl("https://app.example/a#code=2?state=3"), "https://app.example/a#code=<redacted>?state=<redacted>")
  })

  it("ConnectedVehicleError.redactUrl: no user info, no credential-like values", () => {
    assert.strictEqual(
      ConnectedVehicleError.redactUrl("https://user:pw@legacy.example/v2.0/vehicles/v?code=abc#id_token=x"),
      "https://legacy.example/v2.0/vehicles/v?code=<redacted>#id_token=<redacted>"
    )
  })
})
