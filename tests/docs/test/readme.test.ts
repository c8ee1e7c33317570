/**
 * Docs that cannot rot: every TypeScript block of every README and docs page
 * is type-checked with the repo's compiler and settings (strict,
 * `exactOptionalPropertyTypes`, `module: nodenext`, the workspace packages
 * resolved through their exports maps), and the blocks marked `runnable` run
 * with `node` against a simulator started for the test (`--port 0`), with the
 * environment `pnpm simulator` documents: `CONNECTED_VEHICLE_ORIGIN`,
 * `CONNECTED_VEHICLE_CLIENT_ID`, `CONNECTED_VEHICLE_CLIENT_SECRET`, and an
 * application token of the simulator in `ACCESS_TOKEN` (transport README).
 *
 * Each block is written to `tests/docs/.blocks/<pid>/` (gitignored), where
 * it resolves packages as a consumer of them would. A compiler error is
 * reported at its markdown file and line.
 */
import { assert, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, normalize, relative, sep } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { allBlocks, type Block, repo } from "./Blocks.ts"

const blocks = allBlocks()
const work = join(import.meta.dirname, "..", ".blocks", String(process.pid))

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to completion (killed after `timeoutMs`), never throwing: the caller asserts. */
const run = (command: string, args: ReadonlyArray<string>, options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }) =>
  new Promise<Run>((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs)
    child.on("error", (error) => {
      clearTimeout(timer)
      resolve({ code: -1, stdout, stderr: stderr + String(error) })
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

/** `file.ts(12,5): error TS2345: ...` of a block, as `packages/x/README.md:LINE:COL: error TS2345: ...`. */
const locate = (output: string): ReadonlyArray<string> => {
  const byName = new Map(blocks.map((block) => [block.name, block]))
  return output.split("\n").filter((line) => line.trim() !== "").map((line) => {
    const match = /^(.+?)\((\d+),(\d+)\): (.*)$/.exec(line)
    if (match === null) return line
    const block = byName.get(match[1]!.split(/[\\/]/).pop()!)
    return block === undefined
      ? `${relative(repo, join(work, match[1]!))}:${match[2]}:${match[3]}: ${match[4]}`
      : `${block.file}:${block.line + Number(match[2])}:${match[3]}: ${match[4]}`
  })
}

/** The compiler's run over every block, started with the suite (it overlaps the runnable blocks). */
let typeCheck: Promise<Run>

beforeAll(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(work, { recursive: true })
  for (const block of blocks) if (!block.noCheck) writeFileSync(join(work, block.name), block.code)
  writeFileSync(
    join(work, "tsconfig.json"),
    JSON.stringify({
      extends: "../../../../tsconfig.base.json",
      compilerOptions: {
        // a README block defines values it does not use (`program`, a layer)
        noUnusedLocals: false,
        noUnusedParameters: false,
        noEmit: true,
        composite: false,
        declaration: false,
        emitDeclarationOnly: false,
        incremental: false
      },
      include: ["*.ts"]
    })
  )
  typeCheck = run(join(repo, "node_modules", ".bin", "tsc"), ["-p", join(work, "tsconfig.json")], { cwd: work, timeoutMs: 110_000 })
})

afterAll(async () => {
  await typeCheck
  rmSync(work, { recursive: true, force: true })
})

describe("README and docs blocks", () => {
  it("finds the blocks: the sdk README's headline examples are runnable, fragments are rare", () => {
    assert.isAbove(blocks.length, 15)
    const sdk = blocks.filter((block) => block.file === join("packages", "sdk", "README.md"))
    assert.isTrue(sdk.length >= 2 && sdk[0]!.runnable && sdk[1]!.runnable, "the sdk README's first two blocks are runnable")
    const fragments = blocks.filter((block) => block.noCheck)
    assert.isAtMost(fragments.length, 3, fragments.map((block) => `${block.file}:${block.line}`).join(", "))
  })

  it("a package README's install lines install every package its examples import", () => {
    // under pnpm (and any strict layout) an application resolves only what it installed itself
    const problems: Array<string> = []
    for (const file of new Set(blocks.map((block) => block.file))) {
      if (!file.startsWith("packages")) continue
      const installed = new Set(
        [...readFileSync(join(repo, file), "utf8").replaceAll("\\\n", " ").matchAll(/(?:npm install|pnpm add)\b([^\n`#]*)/g)]
          .flatMap((match) => match[1]!.trim().split(/\s+/))
          .filter((word) => word !== "" && !word.startsWith("-") && word !== "\\")
          .map((spec) => spec.replace(/(.)@[^/]*$/, "$1"))
      )
      const imported = new Set(
        blocks.filter((block) => block.file === file).flatMap((block) =>
          [...block.code.matchAll(/(?:from|import)\s*\(?\s*"([^".][^"]*)"/g)]
            .map((match) => match[1]!)
            .filter((specifier) => !specifier.startsWith("node:"))
            .map((specifier) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/"))
        )
      )
      const missing = [...imported].filter((name) => !installed.has(name))
      if (missing.length > 0) problems.push(`${file} imports ${missing.join(", ")} without installing it`)
    }
    assert.deepStrictEqual(problems, [])
  })

  it("a package README's relative links lead to files the package ships (they work in the repository and in the tarball)", () => {
    const problems: Array<string> = []
    for (const dir of readdirSync(join(repo, "packages")).sort()) {
      const root = join(repo, "packages", dir)
      if (!existsSync(join(root, "README.md"))) continue
      const files: ReadonlyArray<string> = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).files ?? []
      const text = readFileSync(join(root, "README.md"), "utf8")
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:|^#/.test(target!)) continue
        const path = normalize(target!.split("#")[0]!)
        const shipped = files.some((entry) => path === entry || path.startsWith(entry + sep))
        if (!shipped || !existsSync(join(root, path))) problems.push(`packages/${dir}/README.md links ${target}`)
      }
      // a shipped copy of a repository doc (scripts/copy-guide.ts) is that doc
      const docs = join(root, "docs")
      for (const file of existsSync(docs) ? readdirSync(docs) : []) {
        if (readFileSync(join(docs, file), "utf8") !== readFileSync(join(repo, "docs", file), "utf8")) {
          problems.push(`packages/${dir}/docs/${file} differs from docs/${file}`)
        }
      }
    }
    assert.deepStrictEqual(problems, [])
  })

  describe.concurrent("runnable blocks run against the simulator", () => {
    let simulator: ChildProcess | undefined
    let env: NodeJS.ProcessEnv = {}

    beforeAll(async () => {
      const child = spawn(process.execPath, [join(repo, "packages", "simulator", "src", "bin.ts"), "--port", "0"], {
        cwd: repo,
        stdio: ["ignore", "pipe", "pipe"]
      })
      simulator = child
      const origin = await new Promise<string>((resolve, reject) => {
        let out = ""
        child.stdout!.on("data", (chunk) => {
          out += chunk
          const match = /listening on (http:\/\/\S+)/.exec(out)
          if (match) resolve(match[1]!)
        })
        child.on("close", (code) => reject(new Error(`the simulator exited ${code}: ${out}`)))
      })
      // an application token, as the transport README gets it (`curl -u id:secret -d grant_type=client_credentials`)
      const token = await fetch(`${origin}/oauth/token`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from("demo-client-id:demo-client-secret").toString("base64")}` },
        body: new URLSearchParams({ grant_type: "client_credentials" })
      })
      assert.strictEqual(token.status, 200)
      env = {
        ...process.env,
        CONNECTED_VEHICLE_ORIGIN: origin,
        CONNECTED_VEHICLE_CLIENT_ID: "demo-client-id",
        CONNECTED_VEHICLE_CLIENT_SECRET: "demo-client-secret",
        ACCESS_TOKEN: ((await token.json()) as { access_token: string }).access_token
      }
    })

    afterAll(() => {
      simulator?.kill()
    })

    const runnable = blocks.filter((block) => block.runnable && !block.noCheck)
    it.each(runnable.map((block): [string, Block] => [`${block.file}:${block.line}`, block]))("%s", async (_, block) => {
      const result = await run(process.execPath, [join(work, block.name)], { cwd: work, env, timeoutMs: 60_000 })
      assert.strictEqual(result.code, 0, `${block.file}:${block.line} exited ${result.code}:\n${result.stdout}\n${result.stderr}`)
    })
  })

  it("every block type-checks (strict, exactOptionalPropertyTypes, nodenext)", async () => {
    const result = await typeCheck
    const errors = locate(result.stdout + result.stderr)
    assert.strictEqual(result.code, 0, `tsc found errors in README blocks:\n${errors.join("\n")}`)
  })
})
