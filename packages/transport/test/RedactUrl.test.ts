import { assert, describe, it } from "@effect/vitest"
import { redactUrl } from "@connected-vehicle/transport/internal/log"

describe("what the SDK logs", () => {
  it("redactUrl hides the value of credential-like query parameters only", () => {
    assert.strictEqual(redactUrl("http://h/p"), "http://h/p")
    assert.strictEqual(
      redactUrl("http://h/p?page=2&access_token=a&client_secret=b&code=c&state=d&API-KEY=e&filter%5Bmode%5D=live&X-Amz-Signature=f"),
      "http://h/p?page=2&access_token=<redacted>&client_secret=<redacted>&code=<redacted>&state=<redacted>&API-KEY=<redacted>&filter%5Bmode%5D=live&X-Amz-Signature=<redacted>"
    )
    assert.strictEqual(redactUrl("http://h/p?refresh%5Ftoken=x&flag#frag"), "http://h/p?refresh%5Ftoken=<redacted>&flag#frag")
  })
})
