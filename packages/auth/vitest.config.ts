import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "auth",
    include: ["test/**/*.test.ts"]
  }
})
