/**
 * Every control path answers a method it does not take with a 405 whose
 * `Allow` lists the path's methods (the section 7 envelope, the path named
 * as the README does); a path no control route has stays a 404. Over a
 * loopback connection.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { layer as simulatorLayer } from "../src/Simulator.ts"
import { call, isEnvelope } from "./helpers.ts"

const Loopback = Layer.mergeAll(simulatorLayer({ port: 0, seed: 29 }), FetchHttpClient.layer)

/** Each control path (as asked, as named), its methods, and methods it does not take. */
const table: ReadonlyArray<readonly [string, string, string, ReadonlyArray<string>]> = [
  ["/_simulator/requests", "/_simulator/requests", "GET, DELETE", ["PUT", "POST", "OPTIONS", "HEAD"]],
  ["/_simulator/reset", "/_simulator/reset", "POST", ["GET", "PUT", "OPTIONS", "DELETE"]],
  ["/_simulator/faults", "/_simulator/faults", "POST", ["GET", "PUT", "OPTIONS"]],
  ["/_simulator/usage", "/_simulator/usage", "GET, DELETE", ["PUT", "POST", "OPTIONS"]],
  ["/_simulator/rate-limits", "/_simulator/rate-limits", "GET, PUT", ["POST", "DELETE", "OPTIONS", "PATCH"]],
  ["/_simulator/bursts", "/_simulator/bursts", "POST", ["GET", "PUT", "DELETE", "OPTIONS"]],
  ["/_simulator/bursts/current", "/_simulator/bursts/current", "GET, DELETE", ["POST", "PUT"]],
  ["/_simulator/bursts/current/truth", "/_simulator/bursts/current/truth", "GET", ["POST", "DELETE"]],
  ["/_simulator/webhooks", "/_simulator/webhooks", "POST", ["GET", "PUT"]],
  ["/_simulator/webhooks/wh-1", "/_simulator/webhooks/:id", "POST, DELETE", ["GET", "PUT", "PATCH"]],
  ["/_simulator/subscriptions", "/_simulator/subscriptions", "POST", ["GET", "DELETE"]],
  ["/_simulator/vehicles/v-1/signals/odometer", "/_simulator/vehicles/:id/signals/:code", "POST", ["GET", "PUT"]],
  ["/_simulator/vehicles/v-1/errors", "/_simulator/vehicles/:id/errors", "POST", ["GET", "DELETE"]],
  ["/_simulator/vehicles/v-1/errors/e-1", "/_simulator/vehicles/:id/errors/:errorId", "DELETE", ["GET", "POST"]],
  ["/_simulator/deliveries", "/_simulator/deliveries", "GET, DELETE", ["PUT", "POST"]]
]

describe("control routes: a method a path does not take", () => {
  it.effect("is a 405 with Allow on every control path, nothing changed", () =>
    Effect.gen(function*() {
      for (const [path, named, allow, methods] of table) {
        for (const method of methods) {
          const reply = yield* call(method, path)
          assert.strictEqual(reply.status, 405, `${method} ${path}: ${reply.text}`)
          assert.strictEqual(reply.headers["allow"], allow, `${method} ${path}`)
          if (method === "HEAD") continue
          assert.isTrue(isEnvelope(reply.json), reply.text)
          assert.strictEqual(reply.json.errors[0].detail, `Method ${method} is not allowed on ${named}; allowed: ${allow}`)
        }
      }
      // the methods a path takes are still served
      assert.strictEqual((yield* call("GET", "/_simulator/rate-limits")).status, 200)
      assert.strictEqual((yield* call("POST", "/_simulator/reset")).status, 204)
    }).pipe(Effect.provide(Loopback)))

  it.effect("a path no control route has is a 404 without Allow", () =>
    Effect.gen(function*() {
      for (const path of ["/_simulator", "/_simulator/nope", "/_simulator/reset/now", "/_simulator/webhooks/wh-1/extra"]) {
        const reply = yield* call("GET", path)
        assert.strictEqual(reply.status, 404, `${path}: ${reply.text}`)
        assert.isUndefined(reply.headers["allow"])
        assert.include(reply.json.errors[0].detail, "No control route GET")
      }
    }).pipe(Effect.provide(Loopback)))
})
