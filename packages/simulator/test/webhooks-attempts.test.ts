/**
 * Each delivery attempt over loopback: the webhook is looked at again before
 * every retry (disabled, re-pointed, or its new callback not verified), and an
 * attempt is decided by the receiver's status line, not by the end of its
 * body. The retry schedule runs on `TestClock`; the HTTP is real.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { createHmac } from "node:crypto"
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { DeliveryLogEntry } from "../src/Delivery.ts"
import { DEFAULT_WEBHOOK_SECRET } from "../src/Delivery.ts"
import { layer, Simulator } from "../src/Simulator.ts"
import { waitFor } from "./helpers.ts"

const wallSleep = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

/** A real-time pause, to see that nothing more happens. */
const pause = wallSleep(300)

interface Hit {
  readonly path: string
  readonly eventId: string
}

/**
 * A receiver on 127.0.0.1:0. `VERIFY`: the right challenge answer, except on
 * `/unverifiable` (a wrong one), `/verify-nonascii` (64 characters, one of
 * them not ASCII), `/verify-slow` (the right one after 1 s), `/verify-404-slow` (404 and a body that never
 * ends) and `/verify-endless` (200 and over 64 KiB of a body that never ends).
 * Other events: `/fail*` answers 500, `/slow-ok` and
 * `/slow-fail` send their status line (200, 503) and part of a body that never
 * ends, every other path 200. Records each event received (not the VERIFY)
 * and counts the connections still open.
 */
const receiver = Effect.acquireRelease(
  Effect.callback<{ url: string; hits: Array<Hit>; open: () => number; close: () => void }>((resume) => {
    const hits: Array<Hit> = []
    const sockets = new Set<import("node:net").Socket>()
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let text = ""
      req.on("data", (chunk: Buffer) => text += chunk.toString("utf8"))
      req.on("end", () => {
        const event = JSON.parse(text) as { eventId: string; eventType: string; data: { challenge?: string } }
        const path = req.url ?? ""
        if (event.eventType === "VERIFY" && path === "/verify-404-slow") {
          res.writeHead(404, { "content-length": "1000" }).write("{\"error\":") // the rest never comes
          return
        }
        if (event.eventType === "VERIFY" && path === "/verify-endless") {
          res.writeHead(200, { "content-type": "application/json", "content-length": String(1024 * 1024) })
          res.write(`{"challenge": "${"0".repeat(80 * 1024)}`) // past 64 KiB, and never ends
          return
        }
        if (event.eventType === "VERIFY" && path === "/verify-nonascii") {
          // 64 characters, more bytes
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ challenge: "é".padEnd(64, "0") }))
          return
        }
        if (event.eventType === "VERIFY" && path === "/verify-slow") {
          const challenge = createHmac("sha256", DEFAULT_WEBHOOK_SECRET).update(event.data.challenge!).digest("hex")
          setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ challenge })), 1_000)
          return
        }
        if (event.eventType === "VERIFY") {
          const challenge = path === "/unverifiable"
            ? "0".repeat(64)
            : createHmac("sha256", DEFAULT_WEBHOOK_SECRET).update(event.data.challenge!).digest("hex")
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ challenge }))
          return
        }
        hits.push({ path, eventId: event.eventId })
        if (path === "/slow-ok" || path === "/slow-fail") {
          res.writeHead(path === "/slow-ok" ? 200 : 503, { "content-type": "application/json", "content-length": "1000" })
          res.write("{\"accepted\":") // the rest never comes
          return
        }
        res.writeHead(path.startsWith("/fail") ? 500 : 200).end()
      })
    })
    server.on("connection", (socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({
        url: `http://127.0.0.1:${port}`,
        hits,
        open: () => sockets.size,
        close: () => {
          server.closeAllConnections()
          server.close()
        }
      }))
    })
  }),
  (r) => Effect.sync(r.close)
)

const Loopback = layer({ port: 0, seed: 7 })

/** A webhook on `path` of the receiver, verified, with the first connected vehicle subscribed: its FIRST_DELIVERY's id. */
const subscribedOn = (url: string, options: { readonly callback: string; readonly errorCallback?: string }) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    const vehicleId = sim.data.vehicleIds[0]!
    const { userId } = sim.data.connectionOf(vehicleId)!
    const webhook = yield* sim.createWebhook({
      name: "mid-retry",
      callbackUri: `${url}${options.callback}`,
      ...(options.errorCallback === undefined ? {} : { errorCallbackUri: `${url}${options.errorCallback}` }),
      triggers: ["odometer-traveleddistance"],
      data: []
    })
    assert.strictEqual(webhook.verification, "succeeded")
    const { firstDeliveryEventId } = yield* sim.subscribe({ webhookId: webhook.id, userId, vehicleId })
    return { webhook, vehicleId, eventId: firstDeliveryEventId! }
  })

/** The log entries of an event, once there are `count` of them. */
const attempts = (eventId: string, count: number) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    let entries: ReadonlyArray<DeliveryLogEntry> = []
    yield* waitFor(`${count} log entries of ${eventId}`, () => {
      entries = Effect.runSync(sim.deliveries).filter((e) => e.eventId === eventId)
      return entries.length >= count
    })
    return entries
  })

describe("each retry looks at the webhook as it is now", () => {
  it.effect("a webhook disabled mid-retry gets no more attempts: the next is logged as dropped, nothing is sent", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const r = yield* receiver
      const { eventId, webhook } = yield* subscribedOn(r.url, { callback: "/fail" })
      const [first] = yield* attempts(eventId, 1)
      assert.strictEqual(first!.status, 500)
      assert.strictEqual(first!.outcome, "retrying")

      yield* sim.updateWebhook(webhook.id, { isEnabled: false })
      yield* TestClock.adjust(Duration.seconds(25))
      const entries = yield* attempts(eventId, 2)
      const second = entries[1]!
      assert.strictEqual(second.attempt, 2)
      assert.strictEqual(second.outcome, "dropped")
      assert.isNull(second.status)
      assert.strictEqual(second.error, "not sent: the webhook is disabled")
      assert.isTrue(Duration.equals(second.latency, Duration.zero))

      yield* TestClock.adjust(Duration.seconds(150))
      yield* pause
      assert.strictEqual((yield* sim.deliveries).filter((e) => e.eventId === eventId).length, 2)
      assert.deepStrictEqual(r.hits.filter((h) => h.eventId === eventId).map((h) => h.path), ["/fail"])
    }).pipe(Effect.provide(Loopback)))

  it.effect("a new callbackUri: the retries go to it once it is verified; one that fails its VERIFY gets none", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const r = yield* receiver
      const moved = yield* subscribedOn(r.url, { callback: "/fail-a" })
      const unverified = yield* subscribedOn(r.url, { callback: "/fail-b" })
      yield* attempts(moved.eventId, 1)
      yield* attempts(unverified.eventId, 1)

      assert.strictEqual((yield* sim.updateWebhook(moved.webhook.id, { callbackUri: `${r.url}/new` })).verification, "succeeded")
      assert.strictEqual((yield* sim.updateWebhook(unverified.webhook.id, { callbackUri: `${r.url}/unverifiable` })).verification, "failed")
      yield* TestClock.adjust(Duration.seconds(25))

      const [, retried] = yield* attempts(moved.eventId, 2)
      assert.strictEqual(retried!.url, `${r.url}/new`)
      assert.strictEqual(retried!.status, 200)
      assert.strictEqual(retried!.outcome, "delivered")

      const [, refused] = yield* attempts(unverified.eventId, 2)
      assert.strictEqual(refused!.outcome, "dropped")
      assert.strictEqual(refused!.url, `${r.url}/unverifiable`)
      assert.strictEqual(refused!.error, "not sent: the webhook's callback is not verified (verification failed)")

      yield* TestClock.adjust(Duration.seconds(150))
      yield* pause
      assert.deepStrictEqual(r.hits.filter((h) => h.eventId === moved.eventId).map((h) => h.path), ["/fail-a", "/new"])
      assert.deepStrictEqual(r.hits.filter((h) => h.eventId === unverified.eventId).map((h) => h.path), ["/fail-b"])
    }).pipe(Effect.provide(Loopback)))

  it.effect("a new errorCallbackUri: the retries of a VEHICLE_ERROR go to it", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const r = yield* receiver
      const { vehicleId, webhook } = yield* subscribedOn(r.url, { callback: "/hooks", errorCallback: "/fail-errors" })
      const { eventIds: [eventId] } = yield* sim.injectVehicleError(vehicleId, { code: "ASLEEP" })
      const [first] = yield* attempts(eventId!, 1)
      assert.strictEqual(first!.url, `${r.url}/fail-errors`)
      assert.strictEqual(first!.outcome, "retrying")

      yield* sim.updateWebhook(webhook.id, { errorCallbackUri: `${r.url}/errors` })
      yield* TestClock.adjust(Duration.seconds(25))
      const [, second] = yield* attempts(eventId!, 2)
      assert.strictEqual(second!.url, `${r.url}/errors`)
      assert.strictEqual(second!.outcome, "delivered")
      assert.deepStrictEqual(r.hits.filter((h) => h.eventId === eventId).map((h) => h.path), ["/fail-errors", "/errors"])
    }).pipe(Effect.provide(Loopback)))
})

describe("an attempt is decided by the status line", () => {
  it.effect("a 2xx whose body never ends is a success at once (the socket is released); a 503 is logged with its status", () =>
    Effect.gen(function*() {
      const r = yield* receiver
      const ok = yield* subscribedOn(r.url, { callback: "/slow-ok" })
      const failing = yield* subscribedOn(r.url, { callback: "/slow-fail" })
      yield* waitFor("both events received", () => r.hits.length === 2)
      yield* pause
      // without an answer by now, the 15 s limit ends the attempts
      yield* TestClock.adjust(Duration.seconds(15))

      const [delivered] = yield* attempts(ok.eventId, 1)
      assert.strictEqual(delivered!.status, 200)
      assert.isNull(delivered!.error)
      assert.strictEqual(delivered!.outcome, "delivered")
      assert.isTrue(Duration.isDuration(delivered!.latency))
      assert.isTrue(Duration.isLessThan(delivered!.latency, Duration.seconds(5)))

      const [refused] = yield* attempts(failing.eventId, 1)
      assert.strictEqual(refused!.status, 503)
      assert.strictEqual(refused!.error, "HTTP 503")
      assert.strictEqual(refused!.outcome, "retrying")

      // the simulator closed both connections although the bodies never ended
      yield* waitFor("the receiver's connections closed", () => r.open() === 0)
    }).pipe(Effect.provide(Loopback)))

  it.effect("a VERIFY is decided by a non-200 status line, and reads at most 64 KiB of a 200's body", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const r = yield* receiver
      // on the wall clock: the test clock does not move, so a VERIFY waiting for a body would never end
      const promptly = <A, E>(effect: Effect.Effect<A, E>) =>
        Effect.raceFirst(effect, Effect.andThen(wallSleep(3_000), Effect.die(new Error("the VERIFY is still waiting"))))
      const webhook = (path: string) =>
        promptly(sim.createWebhook({ name: path, callbackUri: `${r.url}${path}`, triggers: ["odometer-traveleddistance"], data: [] }))
      const notFound = yield* webhook("/verify-404-slow")
      const endless = yield* webhook("/verify-endless")
      assert.strictEqual(notFound.verification, "failed")
      assert.strictEqual(endless.verification, "failed")
      const log = (yield* sim.deliveries).filter((e) => e.eventType === "VERIFY")
      const entryOf = (id: string) => log.find((e) => e.webhookId === id)!
      assert.strictEqual(entryOf(notFound.id).status, 404)
      assert.strictEqual(entryOf(notFound.id).error, "HTTP 404")
      assert.strictEqual(entryOf(endless.id).status, 200)
      assert.strictEqual(entryOf(endless.id).error, "the answer is not {\"challenge\": \"<hex>\"}")
      yield* waitFor("the receiver's connections closed", () => r.open() === 0)
    }).pipe(Effect.provide(Loopback)))

  it.effect("a VERIFY answer of 64 characters that are not all ASCII fails the VERIFY (logged unverified), the webhook is created", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const r = yield* receiver
      const webhook = yield* sim.createWebhook({ name: "nonascii", callbackUri: `${r.url}/verify-nonascii`, triggers: ["odometer-traveleddistance"], data: [] })
      assert.strictEqual(webhook.verification, "failed")
      const entry = (yield* sim.deliveries).find((e) => e.eventType === "VERIFY" && e.webhookId === webhook.id)!
      assert.strictEqual(entry.outcome, "unverified")
      assert.strictEqual(entry.error, "the challenge answer is not HMAC-SHA256(webhook secret, challenge)")
    }).pipe(Effect.provide(Loopback)))

  it.effect("a reset while a VERIFY waits for its answer: the handshake's end is not logged, nothing is delivered after it", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const r = yield* receiver
      const created = yield* Effect.forkChild(
        sim.createWebhook({ name: "slow", callbackUri: `${r.url}/verify-slow`, triggers: ["odometer-traveleddistance"], data: [] })
      )
      yield* wallSleep(300)
      yield* sim.reset
      yield* Fiber.join(created)
      yield* pause
      assert.deepStrictEqual(yield* sim.deliveries, [])
      assert.deepStrictEqual(r.hits, [])
    }).pipe(Effect.provide(Loopback)))
})
