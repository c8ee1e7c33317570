/**
 * The TypeScript blocks of the repository's markdown: every README.md (root,
 * packages, apps, tests) and every docs/*.md.
 *
 * A block is a fence whose info string starts with `ts` or `typescript`. The
 * words after the language are flags:
 *
 * - `runnable`: a complete program; besides being type-checked it is run with
 *   `node` against a simulator (the environment of {@link simulatorEnv}).
 * - `no-check`: a deliberate fragment, neither checked nor run (keep these rare).
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"

export const repo = join(import.meta.dirname, "..", "..", "..")

export interface Block {
  /** The markdown file, relative to the repo. */
  readonly file: string
  /** 1-based line of the opening fence. */
  readonly line: number
  readonly code: string
  readonly runnable: boolean
  readonly noCheck: boolean
  /** A file name for the block: unique, stable, readable. */
  readonly name: string
}

const listMarkdown = (): ReadonlyArray<string> => {
  const files = [join(repo, "README.md")]
  for (const group of ["packages", "apps", "tests"]) {
    for (const dir of readdirSync(join(repo, group)).sort()) {
      const readme = join(repo, group, dir, "README.md")
      if (statSync(readme, { throwIfNoEntry: false })?.isFile()) files.push(readme)
    }
  }
  for (const file of readdirSync(join(repo, "docs")).sort()) {
    if (file.endsWith(".md")) files.push(join(repo, "docs", file))
  }
  return files
}

const fence = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)\s*(.*)$/

/** The TypeScript blocks of one markdown text (`file` names it in the results). */
export const blocksOf = (file: string, text: string): ReadonlyArray<Block> => {
  const lines = text.split("\n")
  const blocks: Array<Block> = []
  for (let i = 0; i < lines.length; i++) {
    const open = fence.exec(lines[i]!)
    if (open === null) continue
    const [, indent, marker, language, rest] = open
    const close = new RegExp(`^\\s*${marker![0] === "`" ? "`" : "~"}{${marker!.length},}\\s*$`)
    let end = i + 1
    while (end < lines.length && !close.test(lines[end]!)) end++
    const isTs = language === "ts" || language === "typescript"
    if (isTs) {
      const flags = rest!.split(/\s+/)
      const body = lines.slice(i + 1, end).map((line) => line.startsWith(indent!) ? line.slice(indent!.length) : line.trimStart())
      blocks.push({
        file,
        line: i + 1,
        code: body.join("\n") + "\n",
        runnable: flags.includes("runnable"),
        noCheck: flags.includes("no-check"),
        name: `${file.replace(/[^A-Za-z0-9]+/g, "_")}_L${i + 1}.ts`
      })
    }
    i = end
  }
  return blocks
}

/** Every TypeScript block of every README and docs page, in file order. */
export const allBlocks = (): ReadonlyArray<Block> =>
  listMarkdown().flatMap((path) => blocksOf(relative(repo, path), readFileSync(path, "utf8")))
