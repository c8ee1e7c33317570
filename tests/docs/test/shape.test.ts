/**
 * The shape of the product code, checked so that it cannot drift: no source
 * file of a package or app over 500 lines, and every export of a public
 * module (a file outside `src/internal/`) documented with `@since` and
 * `@category` and a short `@example` in the JSDoc block right before it.
 */
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { repo } from "./Blocks.ts"

const MAX_LINES = 500

/** The `.ts` files below `dir`, recursively. */
const sources = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : []
  })

/** The `src` of every package and app. */
const sourceFiles = (): ReadonlyArray<string> =>
  ["packages", "apps"].flatMap((group) =>
    readdirSync(join(repo, group)).sort().flatMap((name) => {
      const src = join(repo, group, name, "src")
      return statSync(src, { throwIfNoEntry: false })?.isDirectory() ? sources(src) : []
    })
  )

const isInternal = (file: string) => file.split(/[\\/]/).includes("internal")

// a top-level export that declares or re-exports something (not `export default`, which the packages do not use)
const exportLine = /^export\s+(?:declare\s+)?(?:const|let|function\*?|async\s+function|class|abstract\s+class|interface|type|enum|namespace|\*|\{|type\s+\{)/

/**
 * The JSDoc block that ends right before line `index` (line comments may
 * stand between; blank lines, code or a plain block comment may not), if any.
 */
const docBefore = (lines: ReadonlyArray<string>, index: number): string | undefined => {
  let end = index - 1
  while (end >= 0 && lines[end]!.trim().startsWith("//")) end--
  if (end < 0 || !lines[end]!.trim().endsWith("*/")) return undefined
  // back to the block's opening, over its own lines only (each a `*` line, or the opening itself)
  let start = end
  while (start >= 0) {
    const line = lines[start]!.trim()
    if (line.startsWith("/**")) break
    if (line.startsWith("/*") || !(line.startsWith("*") || start === end)) return undefined
    start--
  }
  return start < 0 ? undefined : lines.slice(start, end + 1).join("\n")
}

/** What the exports of one public module lack: `file:line: missing @since, @category`. */
const undocumented = (file: string, text: string): ReadonlyArray<string> => {
  const lines = text.split("\n")
  const out: Array<string> = []
  const functions = new Set<string>()
  lines.forEach((line, index) => {
    if (!exportLine.test(line)) return
    // the module's own `export {}` (an empty export marking a module) documents nothing
    if (/^export\s*\{\s*\}/.test(line)) return
    // the overloads of a function share the JSDoc of the first
    const name = /^export\s+(?:declare\s+)?(?:async\s+)?function\*?\s+([\w$]+)/.exec(line)?.[1]
    if (name !== undefined) {
      if (functions.has(name)) return
      functions.add(name)
    }
    const doc = docBefore(lines, index) ?? ""
    const missing = ["@since", "@category", "@example"].filter((tag) => !doc.includes(tag))
    if (missing.length > 0) out.push(`${relative(repo, file)}:${index + 1}: missing ${missing.join(", ")}`)
  })
  return out
}

describe("the shape of the source", () => {
  const files = sourceFiles()

  it("reads the sources of every package and app", () => {
    assert.isAbove(files.length, 100)
  })

  it(`no source file is over ${MAX_LINES} lines`, () => {
    const over = files.flatMap((file) => {
      const count = readFileSync(file, "utf8").replace(/\n$/, "").split("\n").length
      return count > MAX_LINES ? [`${relative(repo, file)}: ${count} lines`] : []
    })
    assert.deepStrictEqual(over, [])
  })

  it("every export of a public module has @since, @category and @example", () => {
    const missing = files.filter((file) => !isInternal(file)).flatMap((file) => undocumented(file, readFileSync(file, "utf8")))
    assert.deepStrictEqual(missing, [])
  })

  it("the check finds an undocumented export and a documented one passes", () => {
    const text = [
      "/**",
      " * @example",
      " * ```ts",
      " * const x = 1",
      " * ```",
      " * @since 0.1.0",
      " * @category constants",
      " */",
      "export const documented = 1",
      "/** @since 0.1.0 */",
      "export const noCategory = 2",
      "export const bare = 3",
      "/** @since 0.1.0 @category constructors @example f() */",
      "export function f(a: string): string",
      "export function f(a: number): number",
      "export function f(a: unknown) { return a }",
      "export function g(): void {}",
      "/* not JSDoc */",
      "export const afterPlain = 4",
      "/** @since 0.1.0 @category models @example h */",
      "const hidden = 5",
      "export const afterCode = hidden"
    ].join("\n")
    assert.deepStrictEqual(undocumented(join(repo, "x.ts"), text), [
      "x.ts:11: missing @category, @example",
      "x.ts:12: missing @since, @category, @example",
      "x.ts:17: missing @since, @category, @example",
      "x.ts:19: missing @since, @category, @example",
      "x.ts:22: missing @since, @category, @example"
    ])
  })
})
