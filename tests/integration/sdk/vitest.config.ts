import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "sdk (simulator)",
    include: ["*.test.ts"]
    // isolated (one worker per file, unlike the other projects): the Promise client
    // warns of each v2.0 endpoint once per process, and Deprecation.test.ts counts
    // those warnings
  }
})
