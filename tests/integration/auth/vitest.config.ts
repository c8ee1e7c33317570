import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "auth (simulator)",
    include: ["*.test.ts"]
  }
})
