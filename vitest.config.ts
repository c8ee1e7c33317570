import { join } from "node:path"
import { defineConfig } from "vitest/config"

// every Node process of the run (vitest's workers, the CLIs and servers the
// tests start) keeps V8's compiled code on disk and reuses it: each child
// process loads the same modules (about 5% less CPU for the sample's CLI tests;
// process (the checkout's own directory: no other user's files are loaded)
process.env["NODE_COMPILE_CACHE"] ??= join(import.meta.dirname, "node_modules", ".cache", "node-compile-cache")

export default defineConfig({
  test: {
    projects: [
      "packages/*",
      "apps/*",
      "tests/*/vitest.config.ts",
      // one project per product package: its tests that need the simulator
      "tests/integration/*/vitest.config.ts",
      "packages/schema/vitest.jit.config.ts"
    ],
    reporters: ["default", "./vitest.summary.ts"]
  }
})
