import { defineProject } from "vitest/config"

// The same tests with Effect's schema JIT installed for every schema: an
// application may enable it (`SchemaJITCompiler.enable`) for the exported
// schemas, so every sample, malformed case and round trip must give the
// same result there as with the interpreter.
export default defineProject({
  test: {
    name: "schema (JIT)",
    include: ["test/**/*.test.ts"],
    setupFiles: ["./test/jit.setup.ts"],
    // one worker runs several files (the JIT installed once per worker: its own, never
    // shared with the interpreter's project); effect is loaded once per worker
    isolate: false
  }
})
