import { assert, describe, it } from "@effect/vitest"
import { unsupported } from "../src/internal/nodeVersion.ts"

describe("the Node.js version check before undici loads", () => {
  it("refuses a Node.js older than 22.19 with a message naming both versions", () => {
    for (const node of ["20.20.2", "22.18.0", "18.0.0", "21.99.1"]) {
      assert.strictEqual(unsupported({ node })?.message, `@connected-vehicle/transport needs Node.js 22.19 or later; this is Node ${node}`)
    }
  })

  it("accepts 22.19 and later, and runtimes other than Node", () => {
    for (const node of ["22.19.0", "22.20.1", "23.0.0", "24.9.0", "30.1.0"]) assert.isUndefined(unsupported({ node }))
    assert.isUndefined(unsupported({ node: "20.11.1", deno: "1.46.3" }))
    assert.isUndefined(unsupported({ node: "20.0.0", bun: "1.1.0" }))
    assert.isUndefined(unsupported(undefined))
    assert.isUndefined(unsupported({}))
  })

  it("lets the running Node.js load the transport", () => {
    assert.isUndefined(unsupported(process.versions))
  })
})
