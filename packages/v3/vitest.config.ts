import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "v3",
    include: ["test/**/*.test.ts"]
  }
})
