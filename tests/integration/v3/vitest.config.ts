import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "v3 (simulator)",
    include: ["*.test.ts"],
    // one worker runs several files: effect, the packages and the simulator are
    // loaded once per worker, not once per file
    isolate: false
  }
})
