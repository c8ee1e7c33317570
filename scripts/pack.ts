// `pnpm run pack [folder]`: builds every package (`pnpm run build`) and packs
// each published one with `pnpm pack` (which turns `workspace:^` ranges into
// versions and applies `publishConfig`, unlike `npm pack`) into one folder,
// `dist-packages/` of the repository by default, emptied first.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"

const root = join(import.meta.dirname, "..")
const [folder] = process.argv.slice(2).filter((arg) => arg !== "--")
const destination = resolve(folder ?? join(root, "dist-packages"))

rmSync(destination, { recursive: true, force: true })
mkdirSync(destination, { recursive: true })
execFileSync("pnpm", ["run", "build"], { cwd: root, stdio: "inherit" })
// a module of `dist/` without its source in `src/` (moved or deleted since) is not packed
const stale = (dir: string): Array<string> =>
  (readdirSync(join(dir, "dist"), { recursive: true }) as Array<string>)
    .filter((file) => file.endsWith(".js"))
    .filter((file) => !existsSync(join(dir, "src", file.replace(/\.js$/, ".ts"))))
for (const dir of readdirSync(join(root, "packages")).sort()) {
  const manifest = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"))
  if (manifest.private === true) continue
  const left = stale(join(root, "packages", dir))
  if (left.length > 0) throw new Error(`packages/${dir}/dist holds modules without a source in src/ (${left.join(", ")}): delete it and run pnpm run build`)
  execFileSync("pnpm", ["pack", "--pack-destination", destination], { cwd: join(root, "packages", dir), stdio: "inherit" })
}
console.log(`packed into ${destination}: ${readdirSync(destination).filter((file) => file.endsWith(".tgz")).join(", ")}`)
