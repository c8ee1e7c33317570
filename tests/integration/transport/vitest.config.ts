import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "transport (simulator)",
    include: ["*.test.ts"]
  }
})
