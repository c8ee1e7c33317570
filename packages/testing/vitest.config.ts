import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "testing",
    include: ["test/**/*.test.ts"],
    // one worker runs several files: effect and the packages are loaded once per
    // worker, not once per file (no test here changes global state it keeps)
    isolate: false
  }
})
