import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "fleet",
    include: ["test/**/*.test.ts"],
    // one Postgres and one Redis (Debian's, on 127.0.0.1) for every test file and the processes they start
    globalSetup: ["test/globalSetup.ts"]
  }
})
