/**
 * The client secret of a remote target, run as a child process: the
 * variable `CONNECTED_VEHICLE_CLIENT_SECRET` and `--client-secret-file` are
 * read by one rule, `secretText` of `@connected-vehicle/schema/Redaction`: the white
 * space around the secret trimmed, a control character refused (a usage
 * error naming the variable or the file, never the secret); an empty file is
 * a usage error, an empty variable unset.
 */
import { assert, describe, it } from "@effect/vitest"
import { Redacted } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll } from "vitest"
import { runJson, run, simulators, tempDir } from "./cli.ts"

const LONG = 180_000

const { start: simulator, stopAll } = simulators()
afterAll(stopAll)

describe.concurrent("the client secret: trimmed, no control character", () => {
  it("CONNECTED_VEHICLE_CLIENT_SECRET with white space around it is the secret without it", { timeout: LONG }, async () => {
    const own = (await simulator({ seed: 31, clientSecret: "env-secret-4Tw" })).sim
    const { json, run: result } = await runJson(["connections", "--page-size", "2"], {
      env: {
        CONNECTED_VEHICLE_ORIGIN: own.url,
        CONNECTED_VEHICLE_CLIENT_ID: own.clientId,
        CONNECTED_VEHICLE_CLIENT_SECRET: `  ${Redacted.value(own.clientSecret)}\n`
      }
    })
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(json.data.length, 2)
  })

  it("CONNECTED_VEHICLE_CLIENT_SECRET holding a control character: a usage error naming it, exit 2, no request", { timeout: LONG }, async () => {
    const result = await run(["connections"], {
      env: {
        CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:1",
        CONNECTED_VEHICLE_CLIENT_ID: "x",
        CONNECTED_VEHICLE_CLIENT_SECRET: "sec\u001b[2Jret-5Qp"
      }
    })
    assert.strictEqual(result.code, 2, result.stderr)
    assert.include(result.stderr, "CONNECTED_VEHICLE_CLIENT_SECRET holds a control character")
    assert.notInclude(result.stdout + result.stderr, "ret-5Qp")
  })

  it("a white-space-only CONNECTED_VEHICLE_CLIENT_SECRET is unset: the missing credential's usage error", { timeout: LONG }, async () => {
    const result = await run(["connections"], {
      env: { CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:1", CONNECTED_VEHICLE_CLIENT_ID: "x", CONNECTED_VEHICLE_CLIENT_SECRET: " \t\n" }
    })
    assert.strictEqual(result.code, 2, result.stderr)
    assert.include(result.stderr, "A remote target needs the application's client id and secret")
  })

  it("an empty --client-secret-file: a usage error naming the file, exit 2", { timeout: LONG }, async () => {
    const file = join(tempDir("client-secret"), "empty")
    writeFileSync(file, "  \n")
    const result = await run(["--target", "http://127.0.0.1:1", "--client-id", "x", "--client-secret-file", file, "connections"])
    assert.strictEqual(result.code, 2, result.stderr)
    assert.include(result.stderr, `The client secret file ${file} is empty`)
  })
})
