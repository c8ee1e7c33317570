import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "legacy-v2 (simulator)",
    include: ["*.test.ts"]
  }
})
