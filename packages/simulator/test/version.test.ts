import { assert, describe, it } from "@effect/vitest"
import pkg from "../package.json" with { type: "json" }
import { USER_AGENT } from "../src/Delivery.ts"

describe("version", () => {
  it("the webhook deliveries' User-Agent names the package's version (kept in step by scripts/version.ts)", () => {
    assert.strictEqual(USER_AGENT, `connected-vehicle-simulator/${pkg.version}`)
  })
})
