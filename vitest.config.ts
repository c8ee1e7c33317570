import { defineConfig } from "vitest/config"

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
