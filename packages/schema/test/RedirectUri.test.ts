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

  it("an http or https URI a URL parser reads as another (no //, a backslash, a dot segment) is refused", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["https:app.example/cb", "scheme://host"],
      ["HTTP:/127.0.0.1:8080/cb", "scheme://host"],
      ["https://app.example\\cb", "backslash"],
      ["https://app.example/a/../cb", "dot segment"],
      ["https://app.example/./cb", "dot segment"],
      ["https://app.example/a/%2E%2e/cb", "dot segment"],
      ["http://127.0.0.1:8080/cb/..?x=1", "dot segment"],
      ["http:///127.0.0.1:8080/cb", "keeps as written"],
      ["https:///app.example/cb", "keeps as written"],
      ["http://2130706433:8080/cb", "keeps as written"],
      ["http://0x7f.1/cb", "keeps as written"],
      ["http://%41pp.example/cb", "keeps as written"],
      ["http://127.0.0.1./cb", "keeps as written"],
      ["https://app.example./cb", "keeps as written"],
      ["https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/cb", "keeps as written"],
      ["https://127\u30020\u30020\u30021/cb", "keeps as written"],
      ["https://\uff41pp.example/cb", "keeps as written"],
      ["https://app\u00adexample.com/cb", "keeps as written"],
      ["https://app\u200bexample.com/cb", "keeps as written"],
      ["https://\u00e4%41.com/cb", "keeps as written"]
    ]
    for (const [given, says] of cases) {
      assert.include(redirectUriIssue(given), says, given)
      // the parser does read each as another URI than the one given (or, a trailing dot, another host to compare)
      if (!given.includes("example./")) assert.notStrictEqual(new URL(given).href, given, given)
    }
  })

  it("dots that are no segment, in a query, or in a URI of another scheme, and a host in another case or an internationalized one are kept", () => {
    for (const given of ["https://app.example/a..b/.well/cb...", "https://app.example/cb?next=/../x", "https://app.example", "myapp:/a/../cb", "com.example.app:/callback", "HTTPS://App.Example:443/cb", "https://bücher.example/cb", "https://\u0646\u0627\u0645\u0647\u200c\u0627\u06cc.ir/cb", "https://\u0915\u094d\u200d\u0937.example/cb", "http://[::1]:8080/cb", "http://localhost:1/cb"]) {
      assert.isUndefined(redirectUriIssue(given), given)
    }
  })
})
