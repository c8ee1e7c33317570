/**
 * `OAuth.redirectUriIssue`, the one redirect URI rule of the SDK and the
 * simulator: a URI with user information is refused (the consent URL would
 * carry the password, and the simulator never matches one).
 */
import { assert, describe, it } from "@effect/vitest"
import { redirectUriIssue } from "@connected-vehicle/schema/OAuth"

describe("redirectUriIssue", () => {
  it("a URI with user information (a user, a password, an empty one, or an @ the parser reads past) is refused, never quoted", () => {
    for (
      const given of [
        "https://user:pa55word@app.example/callback",
        "https://user@app.example/callback",
        "https://:pa55word@app.example/callback",
        "https://@app.example/callback",
        "HTTP://user:pa55word@127.0.0.1:8080/cb",
        "myapp://user:pa55word@callback",
        "https://user:pa55word@app.example\\callback"
      ]
    ) {
      const issue = redirectUriIssue(given)
      assert.strictEqual(issue, "Expected an absolute URL without user information (user:password@ before the host would be sent along)", given)
      assert.notInclude(issue, "pa55word")
    }
  })

  it("an @ in the path, query or of a URI without an authority is no user information", () => {
    for (const given of ["https://app.example/callback/@me", "https://app.example/cb?next=a@b.example", "com.example.app:/callback@x", "http://127.0.0.1:8080/cb"]) {
      assert.isUndefined(redirectUriIssue(given), given)
    }
  })
})
