import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "transport",
    include: ["test/**/*.test.ts"]
  }
})
