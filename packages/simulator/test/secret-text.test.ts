/**
 * One rule for a webhook secret given as text (`SecretFile.secretText`): the
 * secret files and `CONNECTED_VEHICLE_WEBHOOK_SECRET` alike, trimmed, a
 * control character refused. With the variable set to `"tok-123 \n"`, the
 * simulator (its CLI, `layerConfig`) signs with `tok-123`, the secret a
 * receiver reading the same variable (the sample's `webhooks listen`) checks
 * with: the `VERIFY` over loopback succeeds.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Logger, Redacted, Result } from "effect"
import { spawn } from "node:child_process"
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import * as Redaction from "@connected-vehicle/schema/Redaction"
import * as NodeAdapter from "@connected-vehicle/webhooks/NodeAdapter"
import { secretText } from "../src/SecretFile.ts"
import { Simulator } from "../src/Simulator.ts"
import * as SimulatorConfig from "../src/SimulatorConfig.ts"
import { listening } from "./helpers.ts"

const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
const spaced = "tok-123 \n"

const withEnv = (env: Record<string, string>) => Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnv({ env }))

/** A receiver keyed with `secret` on 127.0.0.1 (the webhooks package's Node adapter): its URL. */
const receiverOf = (secret: string) =>
  Effect.gen(function*() {
    const handler = NodeAdapter.make({ secret: Redacted.make(secret), layer: Logger.layer([]), handler: () => Effect.void })
    const port = yield* listening(createServer(handler), () => handler.dispose())
    return `http://127.0.0.1:${port}/hooks`
  })

/** A webhook on `callbackUri` created through the control route of the simulator at `url`: its verification. */
const verificationAt = (url: string, callbackUri: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${url}/_simulator/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "spaced", callbackUri, triggers: ["odometer-traveleddistance"], data: [] })
    })
    return ((await response.json()) as { verification?: string }).verification
  })

/** The CLI under `env`: once it listens, `f` of its URL, then SIGTERM; or its exit when it does not start. */
const cliWith = <A>(env: Record<string, string>, f: (url: string) => Effect.Effect<A>) =>
  Effect.acquireUseRelease(
    Effect.promise(() =>
      new Promise<{ readonly url?: string; readonly code?: number | null; readonly stderr: string; readonly stop: () => Promise<void> }>(
        (resolve) => {
          const child = spawn(process.execPath, [bin, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } })
          const exited = new Promise<void>((done) => child.on("exit", () => done()))
          const stop = () => (child.kill("SIGTERM"), exited)
          let stdout = ""
          let stderr = ""
          child.stderr.on("data", (chunk: Buffer) => stderr += chunk.toString())
          child.stdout.on("data", (chunk: Buffer) => {
            stdout += chunk.toString()
            const url = /^listening on (\S+)$/m.exec(stdout)?.[1]
            if (url !== undefined && stdout.includes("docs:")) resolve({ url, stderr, stop })
          })
          child.on("exit", (code) => resolve({ code, stderr, stop }))
        }
      )
    ),
    (started): Effect.Effect<{ readonly started: typeof started; readonly result: A | undefined }> =>
      started.url === undefined ? Effect.succeed({ started, result: undefined }) : Effect.map(f(started.url), (result) => ({ started, result })),
    (started) => Effect.promise(started.stop)
  )

describe("a webhook secret given as text", () => {
  it("secretText: trimmed; a control character inside, or a lone surrogate, refused (never quoted)", () => {
    assert.deepStrictEqual(secretText(spaced), Result.succeed("tok-123"))
    assert.deepStrictEqual(secretText(" \t\n"), Result.succeed(""))
    assert.deepStrictEqual(secretText("tok\u001b[2J123"), Result.fail("holds a control character"))
    assert.deepStrictEqual(secretText("tok\u0000123\n"), Result.fail("holds a control character"))
    assert.deepStrictEqual(secretText("tok\ud800"), Result.fail("not UTF-8 text"))
  })

  it("SecretFile.secretText is the schema's rule, the one the SDK reads CONNECTED_VEHICLE_CLIENT_SECRET by (not a copy)", () => {
    assert.strictEqual(secretText, Redaction.secretText)
  })

  it.live("layerConfig: the variable's secret trimmed, so a receiver keyed with it verifies the webhook; a control character is an InvalidArgument naming the variable", () =>
    Effect.gen(function*() {
      const callbackUri = yield* receiverOf("tok-123")
      const view = yield* Effect.gen(function*() {
        const sim = yield* Simulator
        assert.strictEqual(Redacted.value(sim.webhookSecret), "tok-123")
        return yield* sim.createWebhook({ name: "spaced", callbackUri, triggers: ["odometer-traveleddistance"], data: [] })
      }).pipe(Effect.provide(SimulatorConfig.layerConfig({ port: 0 })), withEnv({ CONNECTED_VEHICLE_WEBHOOK_SECRET: spaced }))
      assert.strictEqual(view.verification, "succeeded")

      for (const text of ["tok\u001b123", "  \n"]) {
        const exit = yield* Effect.exit(
          Layer.build(SimulatorConfig.layerConfig({ port: 0 })).pipe(Effect.scoped, withEnv({ CONNECTED_VEHICLE_WEBHOOK_SECRET: text }))
        )
        const error = Exit.isFailure(exit) ? (exit.cause.reasons[0] as { readonly error?: unknown }).error : undefined
        assert.instanceOf(error, InvalidArgument)
        assert.strictEqual((error as InvalidArgument).field, "CONNECTED_VEHICLE_WEBHOOK_SECRET")
        assert.notInclude((error as InvalidArgument).message, "tok")
      }
    }))

  it.live("the CLI: the variable's secret trimmed (the VERIFY of a receiver keyed with it succeeds); a control character is one `error:` line, exit 1", () =>
    Effect.gen(function*() {
      const callbackUri = yield* receiverOf("tok-123")
      const { result } = yield* cliWith({ CONNECTED_VEHICLE_WEBHOOK_SECRET: spaced }, (url) => verificationAt(url, callbackUri))
      assert.strictEqual(result, "succeeded")

      const { started } = yield* cliWith({ CONNECTED_VEHICLE_WEBHOOK_SECRET: "tok\u001b[2J123" }, () => Effect.void)
      assert.strictEqual(started.code, 1, started.stderr)
      assert.strictEqual(started.stderr, "error: the webhook secret of CONNECTED_VEHICLE_WEBHOOK_SECRET holds a control character\n")
    }), 60_000)
})
