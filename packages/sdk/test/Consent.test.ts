/**
 * The Promise client's consent URL: the permissions are checked before the
 * URL is built (nothing is sent to build it).
 */
import { assert, describe, it } from "@effect/vitest"
import { createClient, InvalidArgumentError } from "@connected-vehicle/sdk/Client"

const options = { clientId: "app", clientSecret: "secret", origin: "http://127.0.0.1:9", redirectUri: "https://app.example/cb" }

describe("legacy.authorizationUrl", () => {
  it("an unknown permission, an empty list or none is an InvalidArgumentError naming permissions", async () => {
    await using client = createClient(options)
    const authorizationUrl = client.legacy.authorizationUrl as (options: unknown) => Promise<string>
    for (const consent of [{ permissions: ["read_foo"] }, { permissions: ["read_vin", "read_foo"] }, { permissions: [] }, {}]) {
      const error = await authorizationUrl(consent).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, InvalidArgumentError, JSON.stringify(consent))
      assert.strictEqual((error as InvalidArgumentError).field, "permissions")
      assert.match((error as InvalidArgumentError).message, /^permissions/)
    }
    const url = new URL(await client.legacy.authorizationUrl({ permissions: ["read_battery", "read_vehicle_info"] }))
    assert.strictEqual(url.searchParams.get("scope"), "read_battery read_vehicle_info")
  })

  it("a redirect URI with user information is an InvalidArgumentError naming redirectUri: the consent URL never carries the password", async () => {
    const withUser = "https://user:pa55word@app.example/callback"
    await using client = createClient(options)
    const error = await client.legacy.authorizationUrl({ permissions: ["read_vin"], redirectUri: withUser }).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, InvalidArgumentError)
    assert.strictEqual((error as InvalidArgumentError).field, "redirectUri")
    assert.match((error as InvalidArgumentError).message, /^redirectUri: Expected an absolute URL without user information/)
    assert.notInclude((error as InvalidArgumentError).message, "pa55word")
    // the client's own redirectUri: refused when the client is made
    assert.throws(() => createClient({ ...options, redirectUri: withUser }), InvalidArgumentError, /^redirectUri: Expected an absolute URL without user information/)
  })
})
