/**
 * The token file's failures through a `Session`: a corrupt file can never
 * be read, so the call fails at once (its `TokenStoreError` is not
 * `transient`: the call's retry policy does not read it again).
 */
import { assert, describe, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { LegacyApi } from "@connected-vehicle/schema/Api"
import { isConnectedVehicleError, reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as TokenFile from "@connected-vehicle/sample/TokenFile"

describe("TokenFile", () => {
  it.live("a corrupt token file fails the call at once: not transient, read once, nothing sent", () =>
    Effect.gen(function*() {
      const path = join(mkdtempSync(join(tmpdir(), "token-file-")), "tokens.json")
      writeFileSync(path, "{ not json", { mode: 0o600 })
      const file = Context.get(yield* Layer.build(TokenFile.layer(path)), TokenStore.TokenStore)
      let reads = 0
      const store = TokenStore.TokenStore.of({ ...file, get: (key, options) => Effect.andThen(Effect.sync(() => reads++), file.get(key, options)) })
      const sent: Array<string> = []
      const client = HttpClient.make((request) =>
        Effect.sync(() => {
          sent.push(request.url)
          return HttpClientResponse.fromWeb(request, new Response(JSON.stringify({ distance: 42 }), { headers: { "content-type": "application/json" } }))
        })
      )
      const transport = Transport.layer.pipe(Layer.provide([
        TransportConfig.layerOrigin("http://service.test", { retry: { maxAttempts: 3, initialDelay: "1 millis", maxDelay: "1 millis" } }),
        Layer.succeed(HttpClient.HttpClient, client)
      ]))
      const error = yield* Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) => legacy.odometer({ params: { id: "veh-1" } })).pipe(
        Effect.provide(Session.layerUser("user-1").pipe(
          Layer.provide([transport, OAuthConfig.layer({ clientId: "app", clientSecret: Redacted.make("secret") }), Layer.succeed(TokenStore.TokenStore, store)])
        )),
        Effect.provide(transport),
        Effect.flip
      )
      const reason = reasonOf(error)
      assert.strictEqual(reason._tag, "Credentials")
      assert.isTrue(isConnectedVehicleError(error) && !error.isRetryable)
      assert.include(error.message, "is not a token file")
      const cause = reason._tag === "Credentials" ? reason.cause : undefined
      assert.instanceOf(cause, TokenStore.TokenStoreError)
      assert.notStrictEqual((cause as TokenStore.TokenStoreError).transient, true)
      assert.strictEqual(reads, 1)
      assert.deepStrictEqual(sent, [])
      assert.strictEqual(readFileSync(path, "utf8"), "{ not json")
    }).pipe(Effect.scoped))
})
