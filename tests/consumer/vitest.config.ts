import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "consumer",
    include: ["test/**/*.test.ts"],
    // one scratch registry and four scratch projects (installed at once), built once for the file
    testTimeout: 240_000,
    hookTimeout: 240_000
  }
})
