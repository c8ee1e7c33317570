import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { CompatibilityApi } from "@connected-vehicle/schema/Api"
import * as Transport from "@connected-vehicle/transport/Transport"
import { TransportConfig } from "@connected-vehicle/transport/TransportConfig"
import * as Config from "@connected-vehicle/transport/TransportConfig"
import { layerSimulator } from "@connected-vehicle/transport/TransportTest"

const fromEnv = (env: Record<string, string>) =>
  Config.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))

describe("TransportConfig", () => {
  it.effect("layerConfig derives the five roots from CONNECTED_VEHICLE_ORIGIN, each overridable", () =>
    Effect.gen(function*() {
      const config = yield* TransportConfig
      assert.deepStrictEqual(config.roots, {
        base: "http://127.0.0.1:8080/v3",
        management: "http://127.0.0.1:8080/v3",
        compatibility: "https://compat.example/v3",
        authorization: "http://127.0.0.1:8080",
        legacy: "http://127.0.0.1:8080"
      })
      assert.strictEqual(config.timeoutMillis, 5000)
      assert.strictEqual(config.retry.maxAttempts, 2)
      assert.strictEqual(config.retry.retryNonIdempotent, false)
      assert.strictEqual(config.rateLimit.wait, true)
      assert.strictEqual(config.requestIdHeader, "x-correlation-id")
    }).pipe(Effect.provide(fromEnv({
      CONNECTED_VEHICLE_ORIGIN: "http://127.0.0.1:8080/",
      CONNECTED_VEHICLE_COMPAT_URL: "https://compat.example/v3",
      CONNECTED_VEHICLE_TIMEOUT_MS: "5000",
      CONNECTED_VEHICLE_MAX_ATTEMPTS: "2",
      CONNECTED_VEHICLE_WAIT_ON_RATE_LIMIT: "true",
      CONNECTED_VEHICLE_REQUEST_ID_HEADER: "X-Correlation-Id"
    }))))

  it.effect("layerConfig fails when a root is missing", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.provide(Effect.service(TransportConfig), fromEnv({ CONNECTED_VEHICLE_BASE_URL: "http://x/v3" })))
      assert.strictEqual(error._tag, "ConfigError")
    }))

  it.effect("layerSimulator runs the transport on the in-memory simulator", () =>
    Effect.gen(function*() {
      const compatibility = yield* Transport.publicClient(CompatibilityApi, "compatibility")
      const all = yield* compatibility.list()
      const us = yield* compatibility.list({ query: { "filter[region]": "US" } })
      assert.isTrue(all.value.data.length >= us.value.data.length)
      assert.isTrue(us.value.data.every((entry) => entry.attributes.region === "US"))
    }).pipe(Effect.provide(layerSimulator())))
})
