import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "v3 (simulator)",
    include: ["*.test.ts"]
  }
})
