/**
 * The packages as an internal team gets them: built (`pnpm run build`),
 * published with the release flow (`pnpm release`) to a throwaway Verdaccio
 * registry on 127.0.0.1, and installed with npm into scratch projects outside
 * the workspace, the way a team with a private scope sets npm up: the
 * `@connected-vehicle` scope from that registry, everything else from the npm
 * registry (and npm's cache). The scratch projects install at once, while
 * the tarballs are packed and checked. Then: `@connected-vehicle/v3` installs alone; every entry
 * point imports (ESM) and `require()`s (CommonJS); a consumer `.ts` file
 * type-checks under `module: nodenext` and `strict`; a 10-line program prints
 * data from the simulator (through `@connected-vehicle/testing`, installed the same way); publint and
 * arethetypeswrong find nothing on any packed tarball.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"

const repo = join(import.meta.dirname, "..", "..", "..")
const fixtures = join(import.meta.dirname, "..", "fixtures")
const bin = (name: string) => join(import.meta.dirname, "..", "node_modules", ".bin", name)

/** Every published package (the workspace's non-private ones). */
const packages = readdirSync(join(repo, "packages"))
  .map((dir) => ({ dir: join(repo, "packages", dir), manifest: JSON.parse(readFileSync(join(repo, "packages", dir, "package.json"), "utf8")) }))
  .filter(({ manifest }) => manifest.private !== true)
  .map(({ dir, manifest }) => ({ dir, name: manifest.name as string, version: manifest.version as string }))

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to completion (bounded), never throwing: the caller asserts. */
const run = (command: string, args: ReadonlyArray<string>, options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }) =>
  new Promise<Run>((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 180_000)
    child.on("error", (error) => {
      clearTimeout(timer)
      resolve({ code: -1, stdout, stderr: stderr + String(error) })
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

const ok = (result: Run, what: string) => {
  assert.strictEqual(result.code, 0, `${what} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`)
  return result
}

/**
 * Runs `task` while holding a lock on the repo's `dist/` folders: building
 * (`pnpm release`) and packing write and read them, and two runs of the suite
 * at once in one checkout must not see each other's half-written files. The
 * lock is a directory (atomic `mkdir`) holding the owner's pid; a lock whose
 * owner is gone is taken over.
 */
const withDistLock = async <A>(task: () => Promise<A>): Promise<A> => {
  const lock = join(repo, "node_modules", ".consumer-test-dist.lock")
  const owner = join(lock, "pid")
  for (let waited = 0;; waited += 250) {
    try {
      mkdirSync(lock)
      writeFileSync(owner, String(process.pid))
      break
    } catch {
      let pid = Number.NaN
      try {
        pid = Number(readFileSync(owner, "utf8"))
      } catch {
        // the owner has not written its pid yet
      }
      let alive = true
      try {
        if (Number.isInteger(pid)) process.kill(pid, 0)
      } catch {
        alive = false
      }
      if (!alive) rmSync(lock, { recursive: true, force: true })
      else if (waited > 300_000) throw new Error(`${lock} is held by process ${pid} for more than 5 minutes`)
      else await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
  try {
    return await task()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

const scratch = mkdtempSync(join(tmpdir(), "cv-consumer-"))
let server: Server
let registry = ""
/** A consumer's environment: the repo's Node first on PATH, none of pnpm's npm_* variables, our npmrc. */
let consumerEnv: NodeJS.ProcessEnv = {}

const npmInstall = (cwd: string, specs: ReadonlyArray<string>) =>
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...specs], { cwd, env: consumerEnv })

const project = (name: string) => {
  const dir = join(scratch, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }, null, 2))
  return dir
}

/** What each scratch project installs. */
const installs: Record<string, () => ReadonlyArray<string>> = {
  "v3-alone": () => ["@connected-vehicle/v3"],
  "sdk-alone": () => ["@connected-vehicle/sdk"],
  "webhooks-alone": () => ["@connected-vehicle/webhooks"],
  // unpinned, as a team adding everything at once types it: npm must settle the peers by itself
  // (@effect/vitest: the optional peer of @connected-vehicle/testing/HttpClientBehaviour, imported below)
  all: () => [...packages.map(({ name }) => name), "effect", "@effect/platform-node", "@effect/vitest", "@types/node@24"]
}
const started = new Map<string, Promise<{ dir: string; result: Run }>>()
/**
 * The scratch project `name`, installed: its `npm install` starts at the
 * first call (once the packages are published, every project's starts at
 * once), and later calls wait for that same install.
 */
const installedProject = (name: keyof typeof installs) => {
  let install = started.get(name)
  if (install === undefined) {
    const dir = project(name)
    install = npmInstall(dir, installs[name]!()).then((result) => ({ dir, result }))
    started.set(name, install)
  }
  return install
}

beforeAll(async () => {
  // 1. a throwaway registry, for our scope only (npm gets everything else from the npm registry)
  const storage = join(scratch, "registry")
  mkdirSync(storage)
  const upstream = process.env["npm_config_registry"] ?? "https://registry.npmjs.org/"
  const { runServer } = await import("verdaccio")
  const app = await runServer({
    self_path: storage,
    storage: join(storage, "storage"),
    auth: { htpasswd: { file: join(storage, "htpasswd"), max_users: 10 } },
    packages: {
      "@connected-vehicle/*": { access: "$all", publish: "$authenticated" }
    },
    web: { enable: false },
    log: { type: "stdout", format: "pretty", level: "error" }
  } as never)
  server = await new Promise<Server>((resolve) => {
    const s: Server = app.listen(0, "127.0.0.1", () => resolve(s))
  })
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`

  // 2. a publisher account, as `npm adduser` makes it
  const user = await fetch(`${registry}-/user/org.couchdb.user:release`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "release", password: "release-password", type: "user", roles: [], date: new Date().toISOString() })
  })
  assert.strictEqual(user.status, 201, await user.clone().text())
  const { token } = (await user.json()) as { token: string }
  const npmrc = join(scratch, "npmrc")
  const auth = `//127.0.0.1:${(server.address() as AddressInfo).port}/:_authToken=${token}\n`
  // our scope from the throwaway registry (where the release publishes it), the rest from the npm registry
  writeFileSync(npmrc, `registry=${upstream}\n@connected-vehicle:registry=${registry}\n${auth}`)

  const base: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|pnpm_|PNPM_|INIT_CWD$|NODE_OPTIONS$|VITEST)/i.test(key)) base[key] = value
  }
  consumerEnv = { ...base, npm_config_userconfig: npmrc, npm_config_update_notifier: "false" }
}, 60_000)

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  rmSync(scratch, { recursive: true, force: true })
})

let packing: Promise<{ pack: Run; tarballs: string; checks: ReadonlyArray<{ publint: Run; attw: Run }> }> | undefined
/**
 * `pnpm run pack` into a scratch folder, then publint and arethetypeswrong on
 * each package's tarball (two packages at a time), started at the first call;
 * the results, for the test to assert.
 */
const packed = () =>
  (packing ??= (async () => {
    const tarballs = join(scratch, "tarballs")
    const pack = await withDistLock(() => run("pnpm", ["run", "pack", tarballs], { cwd: repo }))
    if (pack.code !== 0) return { pack, tarballs, checks: [] }
    const check = async ({ dir, name, version }: (typeof packages)[number]) => {
      const tarball = join(tarballs, `${name.slice(1).replace("/", "-")}-${version}.tgz`)
      // every module, not only ".": attw does not expand the "./*" pattern by itself
      const modules = readdirSync(join(dir, "src"))
        .filter((file) => file.endsWith(".ts") && file !== "index.ts" && file !== "bin.ts")
        .map((file) => `./${file.slice(0, -3)}`)
      const [publint, attw] = await Promise.all([
        run(bin("publint"), ["--strict", tarball], { cwd: import.meta.dirname }),
        run(bin("attw"), ["--profile", "esm-only", "--format", "ascii", "--entrypoints", ".", ...modules, "--", tarball], { cwd: import.meta.dirname })
      ])
      return { publint, attw }
    }
    const checks: Array<{ publint: Run; attw: Run }> = []
    for (let i = 0; i < packages.length; i += 2) checks.push(...await Promise.all(packages.slice(i, i + 2).map(check)))
    return { pack, tarballs, checks }
  })())

describe("packages as an internal team installs them", () => {
  it("the manifests share effect and @effect/platform-node as peers, and pin no dependency", () => {
    for (const { dir, name } of packages) {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
      const dependencies: Record<string, string> = manifest.dependencies ?? {}
      for (const shared of ["effect", "@effect/platform-node"]) {
        // a copy of its own would be a second one beside the application's
        assert.notProperty(dependencies, shared, `${name} depends on ${shared} instead of taking it as a peer`)
        const peer = manifest.peerDependencies?.[shared]
        if (peer !== undefined) assert.strictEqual(peer, "^4.1.0", `${name}'s peer range for ${shared}`)
      }
      for (const [dependency, range] of Object.entries(dependencies)) {
        assert.match(range, /^(\^|workspace:\^)/, `${name} pins ${dependency} at ${range}`)
      }
    }
  })

  it("`pnpm release` builds and publishes every package to the registry", async () => {
    ok(
      await withDistLock(() =>
        run("pnpm", ["run", "release", "--no-git-tag"], {
          cwd: repo,
          env: { ...process.env, npm_config_registry: registry, npm_config_userconfig: join(scratch, "npmrc") }
        })
      ),
      "pnpm release"
    )
    for (const { name, version } of packages) {
      const response = await fetch(`${registry}${name.replace("/", "%2f")}`)
      assert.strictEqual(response.status, 200, `${name} is not on the registry`)
      const document = (await response.json()) as { versions: Record<string, { dependencies?: Record<string, string> }> }
      const published = document.versions[version]
      assert.isDefined(published, `${name}@${version} is not on the registry`)
      for (const range of Object.values(published!.dependencies ?? {})) {
        assert.notMatch(range, /^workspace:/, `${name} was published with a workspace: range`)
      }
    }
    // published: every scratch project installs now, all at once, while the tarballs are packed and checked
    for (const name of Object.keys(installs)) void installedProject(name)
    packed().catch(() => undefined) // a failure is its test's to report
  })

  it("installs @connected-vehicle/v3 alone from the registry, with one copy of effect", async () => {
    const { dir, result } = await installedProject("v3-alone")
    ok(result, "npm install @connected-vehicle/v3")
    writeFileSync(join(dir, "load.mjs"), "const m = await import('@connected-vehicle/v3')\nconsole.log(Object.keys(m).sort().join(','))\n")
    const imported = ok(await run(process.execPath, ["load.mjs"], { cwd: dir, env: consumerEnv }), "import @connected-vehicle/v3")
    const modules = [...readFileSync(join(repo, "packages", "v3", "src", "index.ts"), "utf8").matchAll(/export \* as (\w+)/g)]
      .map((match) => match[1]!)
      .sort()
    assert.isAbove(modules.length, 5)
    assert.strictEqual(imported.stdout.trim(), modules.join(","))
    const tree = ok(await run("npm", ["ls", "effect", "--all", "--parseable"], { cwd: dir, env: consumerEnv }), "npm ls effect")
    const copies = new Set(tree.stdout.trim().split("\n").filter((line) => /node_modules\/effect$/.test(line)))
    assert.strictEqual(copies.size, 1, `more than one effect installed:\n${tree.stdout}`)
  })

  /** The repo's TypeScript on one fixture file in a scratch project: nodenext, strict, skipLibCheck off. */
  const typeCheck = async (dir: string, fixture: string, compilerOptions: Record<string, unknown> = {}) => {
    copyFileSync(join(fixtures, fixture), join(dir, fixture))
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2023",
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          skipLibCheck: false,
          ...compilerOptions
        },
        files: [fixture]
      })
    )
    return ok(await run("tsc", ["-p", join(dir, "tsconfig.json")], { cwd: repo }), `tsc on ${fixture}`)
  }

  it("@connected-vehicle/sdk without its optional peers, the simulator or @types/node, imports and type-checks", async () => {
    const { dir, result } = await installedProject("sdk-alone")
    ok(result, "npm install @connected-vehicle/sdk")
    const installed = readdirSync(join(dir, "node_modules", "@connected-vehicle")).sort()
    assert.notInclude(installed, "simulator")
    // the declarations need no Node types (none are installed, none are loaded)
    assert.isFalse(readdirSync(join(dir, "node_modules")).includes("@types"))
    await typeCheck(dir, "without-simulator.ts", { types: [], lib: ["es2023", "dom"] })
    writeFileSync(join(dir, "load.mjs"), "const m = await import('@connected-vehicle/sdk')\nconst c = await import('@connected-vehicle/sdk/Client')\nconsole.log(Object.keys(m).join(','), typeof c.createClient)\n")
    const loaded = ok(await run(process.execPath, ["load.mjs"], { cwd: dir, env: consumerEnv }), "import @connected-vehicle/sdk")
    assert.match(loaded.stdout.trim(), /ConnectedVehicle.* function$/)
  })

  it("@connected-vehicle/webhooks alone type-checks without @types/node (a Web receiver)", async () => {
    const { dir, result } = await installedProject("webhooks-alone")
    ok(result, "npm install @connected-vehicle/webhooks")
    assert.isFalse(readdirSync(join(dir, "node_modules")).includes("@types"))
    await typeCheck(dir, "webhooks-web.ts", { types: [], lib: ["es2023", "dom"] })
  })

  describe("every package in one scratch project", () => {
    let dir = ""
    /** Every public module of every package: `name` and `name/Module` for each `dist/Module.js`. */
    let entryPoints: ReadonlyArray<string> = []

    beforeAll(async () => {
      const all = await installedProject("all")
      dir = all.dir
      ok(all.result, "npm install of every package")
      // one copy of each, shared by every package
      for (const shared of ["effect", "@effect/platform-node"]) {
        const tree = ok(await run("npm", ["ls", shared, "--all", "--parseable"], { cwd: dir, env: consumerEnv }), `npm ls ${shared}`)
        const copies = new Set(tree.stdout.trim().split("\n").filter((line) => line.endsWith(`node_modules/${shared}`)))
        assert.strictEqual(copies.size, 1, `not one ${shared} installed:\n${tree.stdout}`)
      }
      entryPoints = packages.flatMap(({ name }) => {
        const dist = join(dir, "node_modules", name, "dist")
        const modules = readdirSync(dist)
          .filter((file) => file.endsWith(".js") && file !== "index.js" && file !== "bin.js")
          .map((file) => `${name}/${file.slice(0, -3)}`)
        return [name, ...modules]
      })
    })

    /** `{ id: sorted export names }` for every entry point, as ESM `import` or CommonJS `require` sees it. */
    const exportsSeenBy = async (mode: "module" | "commonjs") => {
      // a file, as a consumer has it (`node -e` defines a global `__filename`
      // that real CommonJS and ES modules do not have)
      const file = join(dir, mode === "module" ? "load.mjs" : "load.cjs")
      const load = mode === "module" ? "await import(id)" : "require(id)"
      writeFileSync(file, `const seen = {}\nfor (const id of ${JSON.stringify(entryPoints)}) seen[id] = Object.keys(${load}).sort()\nconsole.log(JSON.stringify(seen))\n`)
      const result = ok(await run(process.execPath, [file], { cwd: dir, env: consumerEnv }), `${mode} load`)
      return JSON.parse(result.stdout) as Record<string, ReadonlyArray<string>>
    }

    it("imports every entry point with ESM", async () => {
      const seen = await exportsSeenBy("module")
      assert.deepStrictEqual(Object.keys(seen), [...entryPoints])
      assert.isAbove(entryPoints.length, 40)
      assert.includeMembers([...seen["@connected-vehicle/v3/Signals"]!], ["Signals", "layer", "make"])
    })

    it("require()s every entry point from CommonJS, with the same exports", async () => {
      const esm = await exportsSeenBy("module")
      const cjs = await exportsSeenBy("commonjs")
      for (const id of entryPoints) assert.deepStrictEqual(cjs[id]!.filter((key) => key !== "module.exports"), esm[id], id)
    })

    it("runs the simulator's bin", async () => {
      const child = spawn(join(dir, "node_modules", ".bin", "connected-vehicle-simulator"), ["--port", "0"], { cwd: dir, env: consumerEnv })
      try {
        const line = await new Promise<string>((resolve, reject) => {
          let out = ""
          child.stdout.on("data", (chunk) => {
            out += chunk
            const match = /listening on (http:\/\/\S+)/.exec(out)
            if (match) resolve(match[1]!)
          })
          child.on("close", (code) => reject(new Error(`simulator exited ${code}: ${out}`)))
        })
        const response = await fetch(`${line}/v3/compatible-vehicles`)
        assert.strictEqual(response.status, 200)
        assert.isAbove(((await response.json()) as { data: ReadonlyArray<unknown> }).data.length, 0)
      } finally {
        child.kill()
      }
    })

    it("type-checks a consumer file with module nodenext and strict", async () => {
      await typeCheck(dir, "consumer.ts", { types: ["node"] })
    })

    it("runs the 10-line program against the installed simulator", async () => {
      copyFileSync(join(fixtures, "program.ts"), join(dir, "program.ts"))
      const result = ok(await run(process.execPath, ["program.ts"], { cwd: dir, env: consumerEnv, timeoutMs: 60_000 }), "node program.ts")
      const lines = result.stdout.trim().split("\n")
      assert.strictEqual(lines.length, 4, result.stdout)
      for (const line of lines.slice(0, 3)) assert.match(line, /^\S+ \S.* \S+$/)
      assert.match(lines[3]!, /^total [1-9]\d*$/)
    })
  })

  it("`pnpm run pack` packs every package into one folder; publint and arethetypeswrong find nothing on any tarball", async () => {
    const { checks, pack, tarballs } = await packed()
    ok(pack, "pnpm run pack")
    const files = readdirSync(tarballs).filter((file) => file.endsWith(".tgz"))
    assert.strictEqual(files.length, packages.length)
    // the migration guide their READMEs and deprecation warnings name ships with legacy-v2 and v3
    for (const name of ["legacy-v2", "v3"]) {
      const tarball = join(tarballs, files.find((file) => file.startsWith(`connected-vehicle-${name}-`))!)
      const listing = ok(await run("tar", ["tzf", tarball], { cwd: scratch }), `tar tzf ${tarball}`)
      assert.include(listing.stdout.split("\n"), "package/docs/migrating-to-v3.md", name)
    }
    for (const [i, { name }] of packages.entries()) {
      ok(checks[i]!.publint, `publint ${name}`)
      ok(checks[i]!.attw, `attw ${name}`)
    }
  })
})
