// A build starts from nothing: a package's `dist/` and the build's own
// `.tsbuild/build.tsbuildinfo` are removed first (the type check's files in
// `.tsbuild/` stay), so that the build, and what `pnpm pack` and turbo's cache
// take of it, holds only what `src/` compiles to now, never the output of a
// module since moved or deleted. Run in a package by its `build` script; with
// `--all`, from the root, for every package and app before `turbo run build` (a cache
// hit restores its outputs over whatever `dist/` held: emptied first, it holds
// exactly them).
import { readdirSync, rmSync } from "node:fs"
import { join } from "node:path"

const clean = (dir: string) => {
  rmSync(join(dir, "dist"), { recursive: true, force: true })
  rmSync(join(dir, ".tsbuild", "build.tsbuildinfo"), { force: true })
}

if (process.argv.includes("--all")) {
  for (const group of ["packages", "apps"]) {
    const root = join(import.meta.dirname, "..", group)
    for (const dir of readdirSync(root)) clean(join(root, dir))
  }
} else {
  clean(".")
}
