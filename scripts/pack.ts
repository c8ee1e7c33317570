// `pnpm run pack [folder]`: builds every package (`pnpm run build`) and packs
// each published one with `pnpm pack` (which turns `workspace:^` ranges into
// versions and applies `publishConfig`, unlike `npm pack`) into one folder,
// `dist-packages/` of the repository by default, emptied first.
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"

const root = join(import.meta.dirname, "..")
const [folder] = process.argv.slice(2).filter((arg) => arg !== "--")
const destination = resolve(folder ?? join(root, "dist-packages"))

rmSync(destination, { recursive: true, force: true })
mkdirSync(destination, { recursive: true })
execFileSync("pnpm", ["run", "build"], { cwd: root, stdio: "inherit" })
for (const dir of readdirSync(join(root, "packages")).sort()) {
  const manifest = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"))
  if (manifest.private === true) continue
  execFileSync("pnpm", ["pack", "--pack-destination", destination], { cwd: join(root, "packages", dir), stdio: "inherit" })
}
console.log(`packed into ${destination}: ${readdirSync(destination).filter((file) => file.endsWith(".tgz")).join(", ")}`)
