import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "simulator",
    include: ["test/**/*.test.ts"],
    // one worker runs several files: effect and the packages are loaded once per
    // worker, not once per file (every test closes what it starts)
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
