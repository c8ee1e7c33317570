import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "sample",
    include: ["test/**/*.test.ts"],
    // one worker runs several files: effect, the packages and the simulator are
    // loaded once per worker, not once per file (every test closes what it starts)
    isolate: false,
    testTimeout: 120_000,
    hookTimeout: 120_000
  }
})
