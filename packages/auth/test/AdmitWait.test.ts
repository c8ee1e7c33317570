/**
 * The credential around the transport's `admit` (a rate-limit slot): the
 * token is read before the wait and again after it; what happened meanwhile
 * to the session counts. Over a loopback server.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { json, oauth, odometer, tokenEndpoint } from "./loopback.ts"
import { userToken } from "./tokens.ts"

const sent: Array<string> = []
const endpoint = tokenEndpoint(
  (_, response) => json(response, 400, { error: "invalid_grant", error_description: "no such refresh token" }),
  (request, response) => {
    sent.push(String(request.headers.authorization))
    json(response, 200, { distance: 42 })
  }
)

describe("the credential and the admit wait", () => {
  it.live("a user signed out while the request waits for its slot: nothing is sent, the call fails with the Credentials reason", () =>
    Effect.gen(function*() {
      sent.length = 0
      const store = yield* TokenStore.makeMemory
      yield* store.set("user-1", userToken(0, "access-user-1", "refresh-1"))
      // the sign-out happens while the request waits for its rate-limit slot
      const admit = () => Effect.andThen(Effect.sleep(100), Effect.orDie(store.remove("user-1")))
      const transport = Transport.layerWith({ admit }).pipe(Layer.provide([
        TransportConfig.layerOrigin(endpoint.origin(), { retry: { maxAttempts: 1 } }),
        UndiciHttpClient.layer()
      ]))
      const session = Session.layerUser("user-1").pipe(Layer.provide([transport, oauth, Layer.succeed(TokenStore.TokenStore, store)]))
      const error = yield* Effect.flip(odometer().pipe(Effect.provide(Layer.merge(session, transport))))
      assert.strictEqual(reasonOf(error)._tag, "Credentials")
      assert.deepStrictEqual(sent, [])
    }))

  it.live("a session whose token stays: the request is sent after the wait with it", () =>
    Effect.gen(function*() {
      sent.length = 0
      const store = yield* TokenStore.makeMemory
      yield* store.set("user-1", userToken(0, "access-user-1", "refresh-1"))
      const transport = Transport.layerWith({ admit: () => Effect.sleep(50) }).pipe(Layer.provide([
        TransportConfig.layerOrigin(endpoint.origin(), { retry: { maxAttempts: 1 } }),
        UndiciHttpClient.layer()
      ]))
      const session = Session.layerUser("user-1").pipe(Layer.provide([transport, oauth, Layer.succeed(TokenStore.TokenStore, store)]))
      const { value } = yield* odometer().pipe(Effect.provide(Layer.merge(session, transport)))
      assert.strictEqual(value.distance, 42)
      assert.deepStrictEqual(sent, ["Bearer access-user-1"])
    }))
})
