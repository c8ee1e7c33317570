import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Logger, Redacted, References } from "effect"
import type { LogLevel } from "effect"
import { NodeHttpClient } from "@effect/platform-node"
import { CompatibilityApi, LegacyApi, ManagementApi } from "@connected-vehicle/schema/Api"
import * as SimulatorModule from "@connected-vehicle/simulator/Simulator"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { layerTest } from "@connected-vehicle/testing/TransportTest"
import { makeEnvelope } from "@connected-vehicle/schema/ServiceError"
import { matching as logged } from "@connected-vehicle/testing/RequestLog"
import { applicationToken as appToken } from "@connected-vehicle/testing/SignIn"

interface Line {
  readonly level: LogLevel.LogLevel
  readonly message: string
  readonly annotations: Readonly<Record<string, unknown>>
}

/** A logger that keeps every line it is given, with its annotations. */
const capture = () => {
  const lines: Array<Line> = []
  const logger = Logger.make((options) => {
    lines.push({
      level: options.logLevel,
      message: Array.isArray(options.message) ? options.message.map(String).join(" ") : String(options.message),
      annotations: { ...options.fiber.getRef(References.CurrentLogAnnotations) }
    })
  })
  return { lines, layer: Logger.layer([logger]) }
}

/**
 * The simulator on 127.0.0.1 (free port) and the transport over a real socket,
 * configured from the environment `env` (plus the simulator's origin).
 */
const fromEnv = (env: Record<string, string>) => {
  // the server's fibers log nowhere: the captured lines are the client's alone
  const simulator = SimulatorModule.layer({ host: "127.0.0.1", port: 0 }).pipe(
    Layer.provide(Logger.layer([], { mergeWithExisting: false }))
  )
  const config = Layer.unwrap(Effect.map(Effect.service(Simulator), (sim) =>
    TransportConfig.layerConfig.pipe(
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({
        env: {
          CONNECTED_VEHICLE_ORIGIN: sim.url,
          CONNECTED_VEHICLE_RETRY_INITIAL_DELAY: "5 millis",
          CONNECTED_VEHICLE_RETRY_MAX_DELAY: "20 millis",
          ...env
        }
      })))
    ))).pipe(Layer.provide(simulator))
  return Layer.mergeAll(
    Transport.layer.pipe(Layer.provide([config, NodeHttpClient.layerUndici])),
    simulator
  )
}

const WEBHOOKS = "/v3/webhooks"

/** A webhooks page with the application's token, after a 500 (so: two attempts). */
const retriedCall = Effect.gen(function*() {
  const sim = yield* Simulator
  const token = yield* appToken
  yield* sim.injectFaults({ path: WEBHOOKS, faults: [{ _tag: "Status", status: 500 }] })
  const webhooks = yield* Transport.client(ManagementApi, "webhooks").pipe(
    Effect.provide(Credentials.layerStatic(token))
  )
  const result = yield* webhooks.list({ query: { page: 1, pageSize: 5 } })
  return { sim, token, result }
})

/** Everything a log line must never contain. */
const secretsOf = (sim: Simulator["Service"], token: Redacted.Redacted<string>) => [
  Redacted.value(token),
  Redacted.value(sim.clientSecret),
  Buffer.from(`${sim.clientId}:${Redacted.value(sim.clientSecret)}`).toString("base64"),
  "Bearer",
  "Basic "
]

describe("what the SDK logs", () => {
  it.live("CONNECTED_VEHICLE_LOG=debug: one line per attempt with method, redacted URL, status, duration and attempt number", () => {
    const { layer, lines } = capture()
    return Effect.gen(function*() {
      const { result, sim, token } = yield* retriedCall
      assert.strictEqual(result.status, 200)
      assert.deepStrictEqual((yield* logged(WEBHOOKS)).map((e) => e.status), [500, 200])

      const attempts = lines.filter((line) => line.message === "http attempt" && String(line.annotations["url"]).includes(WEBHOOKS))
      assert.deepStrictEqual(attempts.map((line) => line.level), ["Debug", "Debug"])
      assert.deepStrictEqual(attempts.map((line) => line.annotations["attempt"]), [1, 2])
      assert.deepStrictEqual(attempts.map((line) => line.annotations["status"]), [500, 200])
      assert.deepStrictEqual(attempts.map((line) => line.annotations["method"]), ["GET", "GET"])
      assert.deepStrictEqual(attempts.map((line) => line.annotations["error"]), ["Server", undefined])
      for (const line of attempts) {
        assert.strictEqual(line.annotations["url"], `${sim.url}${WEBHOOKS}?page=1&pageSize=5`)
        const duration = line.annotations["durationMillis"]
        assert.isTrue(typeof duration === "number" && Number.isInteger(duration) && duration >= 0)
      }
      // the request ids are the simulator's (read from x-request-id when sc-request-id is absent)
      const entries = yield* logged(WEBHOOKS)
      assert.deepStrictEqual(attempts.map((line) => line.annotations["requestId"]), entries.map((e) => e.requestId))
      assert.strictEqual(result.requestId, entries[1]!.requestId)

      const retrying = lines.filter((line) => line.message === "retrying")
      assert.strictEqual(retrying.length, 1)
      assert.strictEqual(retrying[0]!.annotations["error"], "Server")
      assert.strictEqual(retrying[0]!.annotations["attempt"], 1)
      assert.strictEqual(retrying[0]!.annotations["url"], `${sim.url}${WEBHOOKS}?page=1&pageSize=5`)

      // the token exchange (Basic credential, client secret in the header) is logged too
      const tokenLine = lines.find((line) => line.message === "http attempt" && line.annotations["url"] === `${sim.url}/oauth/token`)
      assert.strictEqual(tokenLine?.annotations["method"], "POST")
      assert.strictEqual(tokenLine?.annotations["status"], 200)

      // no token, secret or credential in any line
      const text = JSON.stringify(lines)
      for (const secret of secretsOf(sim, token)) assert.notInclude(text, secret)
      // every line is one of the documented messages
      assert.deepStrictEqual([...new Set(lines.map((line) => line.message))].sort(), ["http attempt", "retrying"])
    }).pipe(
      Effect.provide(fromEnv({ CONNECTED_VEHICLE_LOG: "debug" })),
      Effect.provide(layer)
    )
  }, { timeout: 30_000 })

  it.live("at the default level nothing is logged for a successful call, nor for a retried one", () => {
    const { layer, lines } = capture()
    return Effect.gen(function*() {
      const compatibility = yield* Transport.publicClient(CompatibilityApi, "compatibility")
      const ok = yield* compatibility.list()
      assert.strictEqual(ok.status, 200)
      yield* retriedCall
      assert.deepStrictEqual(lines, [])
    }).pipe(Effect.provide(fromEnv({})), Effect.provide(layer))
  }, { timeout: 30_000 })

  it.live("CONNECTED_VEHICLE_LOG=info or off wins over an application logging everything", () => {
    const { layer, lines } = capture()
    return Effect.gen(function*() {
      for (const level of ["info", "off"]) {
        yield* retriedCall.pipe(Effect.provide(fromEnv({ CONNECTED_VEHICLE_LOG: level })))
      }
      assert.deepStrictEqual(lines, [])
    }).pipe(Effect.provide(layer), Effect.provideService(References.MinimumLogLevel, "All"))
  }, { timeout: 30_000 })

  it.live("without CONNECTED_VEHICLE_LOG, the application's MinimumLogLevel when the transport is built decides", () => {
    const { layer, lines } = capture()
    return Effect.gen(function*() {
      const { sim, token } = yield* retriedCall
      const attempts = lines.filter((line) => line.message === "http attempt" && String(line.annotations["url"]).includes(WEBHOOKS))
      assert.deepStrictEqual(attempts.map((line) => line.annotations["status"]), [500, 200])
      assert.deepStrictEqual(attempts.map((line) => line.annotations["url"]), [`${sim.url}${WEBHOOKS}?page=1&pageSize=5`, `${sim.url}${WEBHOOKS}?page=1&pageSize=5`])
      const text = JSON.stringify(lines)
      for (const secret of secretsOf(sim, token)) assert.notInclude(text, secret)
    }).pipe(Effect.provide(fromEnv({})), Effect.provide(layer), Effect.provideService(References.MinimumLogLevel, "Debug"))
  }, { timeout: 30_000 })

  it.effect("a 401 replayed with a renewed token: both attempts and the replay are logged, no token", () => {
    const { layer, lines } = capture()
    let current = 0
    const renewing = Layer.succeed(Credentials.Credentials, {
      token: Effect.sync(() => Redacted.make(`secret-token-${current}`)),
      refresh: () => Effect.sync(() => ++current > 0)
    })
    return Effect.gen(function*() {
      const legacy = yield* Transport.client(LegacyApi, "legacy")
      const result = yield* legacy.odometer({ params: { id: "v1" } })
      assert.strictEqual(result.requestId, "sc-2")
      assert.deepStrictEqual(lines.map((line) => line.message), ["http attempt", "replaying after 401 with a refreshed token", "http attempt"])
      const [first, replay, second] = lines
      assert.deepStrictEqual(
        { ...first!.annotations, durationMillis: 0 },
        { method: "GET", url: "http://mock.test/v2.0/vehicles/v1/odometer", attempt: 1, status: 401, durationMillis: 0, requestId: "sc-1", error: "Authentication" }
      )
      assert.deepStrictEqual(replay!.annotations, { method: "GET", url: "http://mock.test/v2.0/vehicles/v1/odometer" })
      assert.strictEqual(second!.annotations["attempt"], 2)
      assert.strictEqual(second!.annotations["status"], 200)
      assert.notInclude(JSON.stringify(lines), "secret-token")
    }).pipe(
      Effect.provide(Layer.merge(
        layerTest(
          (_, i) =>
            i === 0
              ? { status: 401, headers: { "sc-request-id": "sc-1", "x-request-id": "x-1" }, json: makeEnvelope("AUTHENTICATION", "expired", { status: 401 }) }
              : { status: 200, headers: { "sc-request-id": "sc-2" }, json: { distance: 1 } },
          { logLevel: "Debug" }
        ),
        renewing
      )),
      Effect.provide(layer)
    )
  })
})
