/**
 * End-to-end: `webhooks listen` as a child process receiving deliveries from
 * a simulator started here (and by hand, signed with the webhooks package),
 * and the tour's webhook step on the embedded simulator. No assertion depends
 * on timing; waits end when the expected output appears (the test timeouts
 * are the only limits).
 */
import * as Signature from "@connected-vehicle/webhooks/Signature"
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as SimulatorConfig from "@connected-vehicle/simulator/SimulatorConfig"
import { ConfigProvider, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { afterAll } from "vitest"
import { parseJson, run, secretFile, simulators, start } from "./cli.ts"
import type { Started } from "./cli.ts"
import { handMeta } from "./events.ts"

const LONG = 180_000
const secretText = "sample-listen-token-8c2e61f04b"
const secret = Redacted.make(secretText)

const { start: startSimulator, stopAll } = simulators()
afterAll(stopAll)

const simulator = () => startSimulator({ webhookSecret: secretText })

/** `webhooks listen --port 0`, once it listens: its URL and a wait for stdout text. */
const listen = async (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const started = await start(["webhooks", "listen", "--port", "0", ...args], { env })
  const [, url] = await started.stderrMatch(/Listening for webhook deliveries on (http:\/\/127\.0\.0\.1:\d+)\//)
  let stdout = ""
  const waiting = new Set<() => void>()
  started.child.stdout!.on("data", (chunk: string) => {
    stdout += chunk
    for (const check of waiting) check()
  })
  const stdoutMatch = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = stdout.match(pattern)
        if (match === null) return
        waiting.delete(check)
        resolve(match)
      }
      waiting.add(check)
      check()
      void started.done.then((result) => reject(new Error(`exited ${result.code}:\n${result.stdout}\n${result.stderr}`)))
    })
  return { started, url: url!, stdoutMatch, stdout: () => stdout }
}

const stop = async (started: Started) => {
  started.child.kill("SIGTERM")
  return started.done
}

const stateEvent = (eventId: string) => ({
  eventId,
  eventType: "VEHICLE_STATE",
  vehicleId: "veh_hand",
  data: {
    user: { id: "usr_hand" },
    vehicle: { id: "veh_hand", make: "Renault", model: "Zo\u00e9", year: 2022 },
    triggers: [{ code: "charge-ischarging", name: "IsCharging", group: "Charge" }],
    signals: []
  },
  meta: handMeta
})

const deliver = (url: string, body: string, signature: string) =>
  fetch(`${url}/webhooks`, {
    method: "POST",
    headers: { "content-type": "application/json", "sc-signature": signature },
    body
  }).then(async (response) => ({ status: response.status, text: await response.text() }))

describe.concurrent("webhooks listen", () => {
  it("--json: the simulator's VERIFY, FIRST_DELIVERY and VEHICLE_STATE, one JSON line each; a bad signature is rejected", {
    timeout: LONG
  }, async () => {
    const { runtime, sim } = await simulator()
    const listener = await listen(["--json"], { CONNECTED_VEHICLE_WEBHOOK_SECRET: secretText })
    const vehicleId = sim.data.vehicleIds[1]!
    const { userId } = sim.data.connectionOf(vehicleId)!
    const webhook = await runtime.runPromise(sim.createWebhook({
      name: "Listen e2e",
      callbackUri: `${listener.url}/webhooks`,
      triggers: ["odometer-traveleddistance"],
      data: ["odometer-traveleddistance", "vehicleidentification-vin"]
    }))
    assert.strictEqual(webhook.verification, "succeeded")
    await runtime.runPromise(sim.subscribe({ webhookId: webhook.id, userId, vehicleId }))
    // deliveries are not ordered: the change is made once the first delivery was printed
    await listener.stdoutMatch(/"FIRST_DELIVERY"/)
    const change = await runtime.runPromise(sim.setSignal(vehicleId, "odometer-traveleddistance", { unit: "km", value: 4242.5 }))
    const eventId = change.eventIds[0]!
    const [matched] = await listener.stdoutMatch(new RegExp(`^.*"${eventId}".*$`, "m"))
    const event = JSON.parse(matched!)
    assert.strictEqual(event.eventType, "VEHICLE_STATE")
    assert.strictEqual(event.vehicleId, vehicleId)
    assert.strictEqual(event.data.user.id, userId)
    assert.deepStrictEqual(event.data.triggers, [{ code: "odometer-traveleddistance", name: "Traveled Distance", group: "Odometer" }])
    assert.deepStrictEqual(event.data.signals[0].body, { unit: "km", value: 4242.5 })
    assert.strictEqual(event.meta.webhookId, webhook.id)

    // a delivery signed with another key: 401, reported on stderr, not printed
    const body = JSON.stringify(stateEvent("evt_forged"))
    const forged = await deliver(listener.url, body, Signature.sign(body, Redacted.make("another-key")))
    assert.strictEqual(forged.status, 401)
    assert.include(forged.text, "InvalidSignature")
    await listener.started.stderrMatch(/rejected: The SC-Signature header does not match/)

    const result = await stop(listener.started)
    const lines = result.stdout.trimEnd().split("\n")
    // every stdout line is one JSON event: FIRST_DELIVERY, then the change
    const events = lines.map((line) => JSON.parse(line))
    assert.deepStrictEqual(events.map((e) => e.data.triggers[0].code), ["FIRST_DELIVERY", "odometer-traveleddistance"])
    assert.notInclude(result.stdout, "evt_forged")
    assert.notInclude(result.stdout + result.stderr, secretText)
  })

  it("table rows with --secret-file; a retried delivery is printed once; a pretty-printed, escaped body verifies", {
    timeout: LONG
  }, async () => {
    const listener = await listen(["--secret-file", secretFile(secretText)])
    await listener.stdoutMatch(/RECEIVED AT\s+EVENT\s+EVENT ID\s+VEHICLE\s+DETAIL/)
    // pretty-printed, with a \u00e9 escape: the bytes on the wire are what is signed
    const body = JSON.stringify(stateEvent("evt_by_hand"), null, 2).replace("Zo\u00e9", "Zo\\u00e9")
    assert.include(body, "Zo\\u00e9")
    const first = await deliver(listener.url, body, Signature.sign(body, secret))
    assert.strictEqual(first.status, 200, first.text)
    const again = await deliver(listener.url, body, Signature.sign(body, secret))
    assert.strictEqual(again.status, 200)
    assert.include(again.text, "duplicate")
    const [row] = await listener.stdoutMatch(/^.*evt_by_hand.*$/m)
    assert.match(row!, /^\d{4}-\d\d-\d\dT\S+Z\s+VEHICLE_STATE\s+evt_by_hand\s+veh_hand\s+triggers=charge-ischarging signals=0 user=usr_hand$/)
    const unsigned = await deliver(listener.url, body, "")
    assert.strictEqual(unsigned.status, 401)
    const result = await stop(listener.started)
    assert.strictEqual(result.stdout.match(/evt_by_hand/g)?.length, 1)
  })

  it("--secret-file new --secret-file old: deliveries signed with either are printed, one with a third secret is a 401", {
    timeout: LONG
  }, async () => {
    const oldText = "sample-rotation-old-61d0a7c3"
    const newText = "sample-rotation-new-f29b4e85"
    const { runtime, sim } = await startSimulator({ webhookSecret: oldText })
    const listener = await listen(["--json", "--secret-file", secretFile(newText), "--secret-file", secretFile(oldText)])
    const vehicleId = sim.data.vehicleIds[2]!
    const { userId } = sim.data.connectionOf(vehicleId)!
    // the service still signs with the old secret: its VERIFY and FIRST_DELIVERY are accepted
    const webhook = await runtime.runPromise(sim.createWebhook({
      name: "Listen rotation",
      callbackUri: `${listener.url}/webhooks`,
      triggers: ["odometer-traveleddistance"],
      data: []
    }))
    assert.strictEqual(webhook.verification, "succeeded")
    await runtime.runPromise(sim.subscribe({ webhookId: webhook.id, userId, vehicleId }))
    await listener.stdoutMatch(/"FIRST_DELIVERY"/)
    // rotated at the service: the next event is signed with the new secret
    await runtime.runPromise(sim.updateWebhook(webhook.id, { secret: Redacted.make(newText) }))
    const change = await runtime.runPromise(sim.setSignal(vehicleId, "odometer-traveleddistance", { unit: "km", value: 77 }))
    await listener.stdoutMatch(new RegExp(`"${change.eventIds[0]!}"`))

    const body = JSON.stringify(stateEvent("evt_third_key"))
    const third = await deliver(listener.url, body, Signature.sign(body, Redacted.make("sample-rotation-third-0c5e")))
    assert.strictEqual(third.status, 401, third.text)
    const result = await stop(listener.started)
    assert.strictEqual(result.stdout.trimEnd().split("\n").length, 2, result.stdout)
    assert.notInclude(result.stdout, "evt_third_key")
    assert.notInclude(result.stdout + result.stderr, newText)
  })

  it("a secret with white space around it: the simulator and the listener, each reading the variable, agree (the VERIFY succeeds)", {
    timeout: LONG
  }, async () => {
    const spaced = "sample-spaced-token-5d1 \n"
    const env = ConfigProvider.layer(ConfigProvider.fromEnv({ env: { CONNECTED_VEHICLE_WEBHOOK_SECRET: spaced } }))
    const runtime = ManagedRuntime.make(Layer.provide(SimulatorConfig.layerConfig({ port: 0 }), env))
    try {
      const sim = await runtime.runPromise(Effect.service(Simulator))
      const listener = await listen([], { CONNECTED_VEHICLE_WEBHOOK_SECRET: spaced })
      const webhook = await runtime.runPromise(sim.createWebhook({
        name: "Spaced secret",
        callbackUri: `${listener.url}/webhooks`,
        triggers: ["odometer-traveleddistance"],
        data: []
      }))
      assert.strictEqual(webhook.verification, "succeeded")
      await stop(listener.started)
    } finally {
      await runtime.dispose()
    }
    // a control character in the variable: a usage error naming it, never quoting it
    const controlled = await run(["webhooks", "listen", "--port", "0"], { env: { CONNECTED_VEHICLE_WEBHOOK_SECRET: "tok\u001b[2J123" } })
    assert.strictEqual(controlled.code, 2, controlled.stderr)
    assert.include(controlled.stderr, "CONNECTED_VEHICLE_WEBHOOK_SECRET holds a control character")
    assert.notInclude(controlled.stderr, "tok")
  })

  it("an empty or blank --host is a usage error (exit 2), the simulator CLI's message: nothing listens", { timeout: LONG }, async () => {
    for (const host of ["", "  "]) {
      const started = await start(["webhooks", "listen", "--port", "0", "--host", host], {
        env: { CONNECTED_VEHICLE_WEBHOOK_SECRET: secretText }
      })
      // a listener (on every interface, `http://:PORT/`) is stopped: the assertion below then fails
      void started.stderrMatch(/Listening for webhook deliveries/).then(() => started.child.kill("SIGTERM"), () => undefined)
      const result = await started.done
      assert.strictEqual(result.code, 2, result.stderr)
      assert.include(result.stderr, "--host must not be empty (an address to listen on, such as 127.0.0.1, ::1 or 0.0.0.0)")
      assert.notInclude(result.stderr, "Listening")
      // a wrong flag value as every other: the command's help named
      assert.include(result.stderr, "webhooks listen --help")
    }
    const json = await run(["webhooks", "listen", "--port", "0", "--host", "", "--json"], { env: { CONNECTED_VEHICLE_WEBHOOK_SECRET: secretText } })
    assert.strictEqual(json.code, 2, json.stderr)
    const error = (JSON.parse(json.stdout) as { readonly error: { readonly tag: string; readonly errors: ReadonlyArray<{ readonly tag: string }> } }).error
    assert.strictEqual(error.tag, "CliError")
    assert.strictEqual(error.errors[0]?.tag, "InvalidValue")
  })

  it("no secret, or a --secret flag, is a usage error (exit 2)", { timeout: LONG }, async () => {
    const none = await run(["webhooks", "listen", "--port", "0"])
    assert.strictEqual(none.code, 2, none.stderr)
    assert.include(none.stderr, "CONNECTED_VEHICLE_WEBHOOK_SECRET")
    const flag = await run(["webhooks", "listen", "--port", "0", "--secret", "x"])
    assert.strictEqual(flag.code, 2)
    const empty = await run(["webhooks", "listen", "--port", "0", "--secret-file", secretFile("  ")])
    assert.strictEqual(empty.code, 2)
    assert.include(empty.stderr, "is empty")
  })
})

describe.concurrent("the tour's webhook step (embedded simulator)", () => {
  it("shows one verified VEHICLE_STATE delivered to the receiver in the process", { timeout: LONG }, async () => {
    const result = await run([])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.include(result.stdout, "6. A webhook delivery")
    assert.match(result.stdout, /Webhook:\s+\S+ \(VERIFY handshake: succeeded\)/)
    assert.match(result.stdout, /Event received:\s+VEHICLE_STATE evt_\w+, signature verified, 1 attempt\(s\)/)
    assert.match(result.stdout, /VEHICLE_STATE\s+evt_\w+\s+\S+\s+triggers=odometer-traveleddistance signals=\d+/)
    assert.match(result.stdout, /odometer-traveleddistance\s+Odometer\s+unit=km value=[\d.]+/)
    const lines = result.stdout.trimEnd().split("\n")
    assert.match(lines[lines.length - 1]!, /1 webhook event received in [\d.]+ s$/)
  })

  it("--json: the delivery in the document", { timeout: LONG }, async () => {
    const result = await run(["--json"])
    assert.strictEqual(result.code, 0, result.stderr)
    const json = parseJson(result)
    assert.strictEqual(json.summary.webhookEvents, 1)
    assert.strictEqual(json.webhookDelivery.verification, "succeeded")
    assert.strictEqual(json.webhookDelivery.event.eventType, "VEHICLE_STATE")
    assert.strictEqual(json.webhookDelivery.event.vehicleId, json.v3.signals.vehicleId)
    assert.deepStrictEqual(json.webhookDelivery.event.data.triggers.map((t: { code: string }) => t.code), ["odometer-traveleddistance"])
    assert.deepStrictEqual(
      json.webhookDelivery.event.data.signals[0].body,
      json.webhookDelivery.change.body
    )
  })
})
