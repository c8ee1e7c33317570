/**
 * The pending changesets can be versioned (`pnpm run version`): each names
 * packages of the workspace with a bump `changeset version` knows, and a
 * changeset that names a private package (the sample app) besides published
 * ones is versioned only when the configuration versions private packages
 * (otherwise `changeset version` refuses the whole set as "mixed").
 */
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { repo } from "./Blocks.ts"

const manifests = [
  ...readdirSync(join(repo, "packages")).map((name) => join(repo, "packages", name, "package.json")),
  ...readdirSync(join(repo, "apps")).map((name) => join(repo, "apps", name, "package.json"))
].flatMap((path) => {
  try {
    return [JSON.parse(readFileSync(path, "utf8")) as { readonly name: string; readonly private?: boolean }]
  } catch {
    return []
  }
})
const isPrivate = new Map(manifests.map((m) => [m.name, m.private === true]))

/** The packages and bumps of a changeset's front matter. */
const releasesOf = (text: string): ReadonlyArray<readonly [string, string]> => {
  const match = /^---\n([\s\S]*?)\n---/.exec(text)
  assert.isNotNull(match, "a front matter")
  return match![1]!.split("\n").filter((line) => line.trim() !== "").map((line) => {
    const entry = /^"([^"]+)":\s*(major|minor|patch|none)\s*$/.exec(line.trim())
    assert.isNotNull(entry, `a "<package>": <bump> line, not ${JSON.stringify(line)}`)
    return [entry![1]!, entry![2]!] as const
  })
}

describe("the pending changesets", () => {
  it("name workspace packages with a known bump, and can be versioned together", () => {
    const config = JSON.parse(readFileSync(join(repo, ".changeset", "config.json"), "utf8"))
    const versionsPrivate = config.privatePackages?.version === true
    const files = readdirSync(join(repo, ".changeset")).filter((name) => name.endsWith(".md") && name !== "README.md")
    for (const file of files) {
      const releases = releasesOf(readFileSync(join(repo, ".changeset", file), "utf8"))
      for (const [name] of releases) assert.isTrue(isPrivate.has(name), `${file}: ${name} is not a workspace package`)
      const privates = releases.filter(([name]) => isPrivate.get(name))
      if (!versionsPrivate) assert.isTrue(privates.length === 0 || privates.length === releases.length, `${file} mixes private and published packages`)
    }
  })
})
