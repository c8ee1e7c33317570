// `pnpm run version`: `changeset version`, then the version constants that
// packages compile in (the User-Agent versions of the transport and of the
// simulator's webhook deliveries) are set from
// the new package.json versions, and the lockfile is refreshed.
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const root = join(import.meta.dirname, "..")
const constants = [
  { pkg: "packages/transport", file: "src/internal/version.ts", name: "sdkVersion" },
  { pkg: "packages/simulator", file: "src/internal/version.ts", name: "simulatorVersion" }
]

for (const { file, name, pkg } of constants) {
  const version: string = JSON.parse(readFileSync(join(root, pkg, "package.json"), "utf8")).version
  const path = join(root, pkg, file)
  const source = readFileSync(path, "utf8")
  const pattern = new RegExp(`(export const ${name}: string = )"[^"]*"`)
  if (!pattern.test(source)) throw new Error(`${path}: no ${name} constant to update`)
  writeFileSync(path, source.replace(pattern, `$1${JSON.stringify(version)}`))
  console.log(`${pkg}/${file}: ${name} = ${version}`)
}
