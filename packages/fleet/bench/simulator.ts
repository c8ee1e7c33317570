/**
 * Bench child process: the simulator on 127.0.0.1 (a free port), with
 * `BENCH_POLL_VEHICLES` vehicles, each connected, and request limits on:
 * 10 per vehicle and `BENCH_POLL_APP_LIMIT` for the application, per
 * second. Prints `ready <json>`: its URL, client credential, and the
 * (vehicle, user) pairs to poll; then, for each line on stdin,
 * `usage <accepted> <limited>`: the application's requests so far.
 */
import { createInterface } from "node:readline"
import { Effect, Redacted } from "effect"
import * as Simulator from "@connected-vehicle/simulator/Simulator"

const vehicles = Number(process.env["BENCH_POLL_VEHICLES"] ?? 1000)
const appLimit = Number(process.env["BENCH_POLL_APP_LIMIT"] ?? 100_000)

const program = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const targets = sim.data.vehicleIds.flatMap((vehicleId) => {
    const connection = sim.data.connectionOf(vehicleId)
    return connection === undefined ? [] : [{ vehicleId, userId: connection.userId }]
  })
  const ready = { url: sim.url, clientId: sim.clientId, clientSecret: Redacted.value(sim.clientSecret), targets }
  process.stdout.write(`ready ${JSON.stringify(ready)}\n`)
  return yield* Effect.promise(async () => {
    for await (const _ of createInterface({ input: process.stdin })) {
      const usage = await Effect.runPromise(sim.usage)
      process.stdout.write(`usage ${usage.application.accepted} ${usage.application.limited}\n`)
    }
  })
})

Effect.runPromise(program.pipe(Effect.provide(Simulator.layer({
  port: 0,
  host: "127.0.0.1",
  seed: 8,
  vehicles,
  connections: vehicles,
  users: 50,
  rateLimit: { perVehicle: { limit: 10, window: "1 second" }, perApplication: { limit: appLimit, window: "1 second" } }
})))).catch((error) => {
  console.error(error)
  process.exit(1)
})
