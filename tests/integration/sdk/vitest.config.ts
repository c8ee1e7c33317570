import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "sdk (simulator)",
    include: ["*.test.ts"]
  }
})
