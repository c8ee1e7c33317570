/**
 * The root README's table of environment variables against what the
 * packages' `Config` values read: every name of the table is looked up (by
 * `ConfigProvider.fromEnv` and, one object level per `Config.nested`, by
 * `ConfigProvider.fromUnknown`), and nothing outside it is.
 */
import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigProvider, Effect } from "effect"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as FleetConfig from "@connected-vehicle/fleet/FleetConfig"
import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
import * as ConnectedVehicle from "@connected-vehicle/sdk/ConnectedVehicle"
import * as SimulatorConfig from "@connected-vehicle/simulator/SimulatorConfig"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { readdirSync, readFileSync } from "node:fs"
import * as SampleConfig from "../src/SampleConfig.ts"

/** The names of the first column of the README's "Configuration" table (`_X` is `CONNECTED_VEHICLE_X`). */
const documented = (): ReadonlyArray<string> => {
  const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8")
  const section = readme.slice(readme.indexOf("## Configuration"))
  const rows = section.split("\n").filter((line) => line.startsWith("| `"))
  return rows.flatMap((row) => {
    const first = row.split("|")[1]!
    return [...first.matchAll(/`([A-Za-z_]+)`/g)].map(([, name]) => name!.startsWith("_") ? `CONNECTED_VEHICLE${name}` : name!)
  })
}

/** Every `Config` value that reads the environment: the packages' one each (the sample's holds its CLI's fallbacks too). */
const everything = Config.all([
  TransportConfig.config,
  OAuthConfig.config,
  Vehicles.config,
  ConnectedVehicle.config,
  FleetConfig.config,
  SimulatorConfig.config,
  SampleConfig.config
])

/** The names `everything` looks up in `provider` (the path's segments joined by `_`, as `fromEnv` joins them). */
const lookedUp = (provider: ConfigProvider.ConfigProvider) =>
  Effect.gen(function*() {
    const names = new Set<string>()
    const recording = ConfigProvider.make((path) => {
      names.add(path.join("_"))
      return provider.load(path)
    })
    yield* everything.parse(recording)
    return names
  })

// the required values; every other variable unset, so that each is looked up (an `*_MS` only then)
const required = { ORIGIN: "http://127.0.0.1:8080", CLIENT_ID: "id", CLIENT_SECRET: "secret" }

describe("the README's table of environment variables", () => {
  it.effect("every name of the table is read, from the environment and from fromUnknown, and no other", () =>
    Effect.gen(function*() {
      const table = documented()
      assert.isAbove(table.length, 40)
      for (const deprecated of ["CONNECTED_VEHICLE_TIMEOUT_MS", "CONNECTED_VEHICLE_MAX_RATE_LIMIT_WAIT_MS", "CONNECTED_VEHICLE_REFRESH_AHEAD_MS"]) {
        assert.include(table, deprecated)
      }
      const fromEnv = yield* lookedUp(ConfigProvider.fromEnv({
        env: Object.fromEntries(Object.entries(required).map(([name, value]) => [`CONNECTED_VEHICLE_${name}`, value]))
      }))
      const fromUnknown = yield* lookedUp(ConfigProvider.fromUnknown({ CONNECTED_VEHICLE: required }))
      for (const names of [fromEnv, fromUnknown]) {
        assert.deepStrictEqual(table.filter((name) => !names.has(name)), [], "in the table, never read")
        assert.deepStrictEqual([...names].filter((name) => !table.includes(name)), [], "read, not in the table")
      }
    }))

  it.effect("a value set under a name of the table is the one read (the deprecated milliseconds too)", () =>
    Effect.gen(function*() {
      const read = yield* Effect.all([TransportConfig.config, OAuthConfig.config, FleetConfig.config]).pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromEnv({
            env: {
              CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080",
              CONNECTED_VEHICLE_CLIENT_ID: "id",
              CONNECTED_VEHICLE_CLIENT_SECRET: "secret",
              CONNECTED_VEHICLE_TIMEOUT_MS: "1500",
              CONNECTED_VEHICLE_REFRESH_AHEAD_MS: "2500",
              CONNECTED_VEHICLE_USER_AGENT: "probe/1",
              FLEET_RUNNER_HOST: "runner-7"
            }
          })
        )
      )
      const [transport, oauth, fleet] = read
      assert.strictEqual(transport.roots.compatibility, "http://127.0.0.1:8080/v3")
      assert.strictEqual(transport.userAgent, "probe/1")
      assert.deepStrictEqual([transport.timeout, oauth.refreshAhead].map(String), ["1500 millis", "2500 millis"])
      assert.strictEqual(oauth.clientId, "id")
      assert.strictEqual(fleet.runnerAddress?.host, "runner-7")
    }))

  it("every variable a package's README names is in the table (no README documents a name nothing reads)", () => {
    const table = new Set(documented())
    const root = new URL("../../../", import.meta.url)
    const readmes = ["packages", "apps"].flatMap((dir) =>
      readdirSync(new URL(`${dir}/`, root)).map((name) => new URL(`${dir}/${name}/README.md`, root))
    ).filter((url) => {
      try {
        return readFileSync(url, "utf8").length > 0
      } catch {
        return false
      }
    })
    assert.isAbove(readmes.length, 8)
    const unknown: Array<string> = []
    for (const url of readmes) {
      const text = readFileSync(url, "utf8")
      // a whole name: a placeholder such as `CONNECTED_VEHICLE_*` or a prefix alone is not one
      for (const [name] of text.matchAll(/\b(?:CONNECTED_VEHICLE|FLEET)_[A-Z0-9_]*[A-Z0-9]\b(?!\*)/g)) {
        // the fleet proof's size and log directory: knobs of that test, not of a package
        if (!table.has(name) && !name.startsWith("FLEET_PROOF_")) unknown.push(`${url.pathname.split("/").slice(-2).join("/")}: ${name}`)
      }
    }
    assert.deepStrictEqual([...new Set(unknown)], [])
  })
})
