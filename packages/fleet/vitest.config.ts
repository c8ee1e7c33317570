import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "fleet",
    include: ["test/**/*.test.ts"],
    // one worker runs several files: effect and the packages are loaded once per
    // worker, not once per file (every test closes what it starts)
    isolate: false,
    // one Postgres and one Redis (Debian's, on 127.0.0.1) for every test file and the processes they start
    globalSetup: ["test/globalSetup.ts"]
  }
})
