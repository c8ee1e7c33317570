import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "tests/*", "packages/schema/vitest.jit.config.ts"],
    reporters: ["default", "./vitest.summary.ts"]
  }
})
