// A package's build starts from nothing: its `dist/` and `.tsbuild/` are emptied
// first, so that the build (and what `pnpm pack` and turbo's cache take of it)
// holds only what `src/` compiles to now, never the output of a module since
// moved or deleted.
import { rmSync } from "node:fs"

for (const dir of ["dist", ".tsbuild"]) rmSync(dir, { recursive: true, force: true })
