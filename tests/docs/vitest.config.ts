import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "docs",
    include: ["test/**/*.test.ts"],
    // one tsc run over every block, then each runnable block as its own process
    testTimeout: 120_000,
    hookTimeout: 120_000
  }
})
