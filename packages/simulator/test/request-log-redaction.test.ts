import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { layer, Simulator } from "../src/Simulator.ts"
import { call } from "./helpers.ts"

const Loopback = Layer.mergeAll(layer({ port: 0 }), FetchHttpClient.layer)

describe("request log: credentials in the query string", () => {
  it.live("the values of credential query parameters are <redacted>, their names and the other parameters kept", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const secrets = ["AT-0123456789", "CS-0123456789", "RT-0123456789", "CODE-0123456789", "PW-0123456789", "CV-0123456789", "EN-0123456789"]
      yield* call(
        "GET",
        `/v3/compatible-vehicles?access_token=${secrets[0]}&Client_Secret=${secrets[1]}&page=2&refresh_token=${secrets[2]}` +
          `&code=${secrets[3]}&state=keep&password=${secrets[4]}&code_verifier=${secrets[5]}&access%5Ftoken=${secrets[6]}&flag`
      )
      yield* call("GET", `/oauth/authorize?response_type=code&client_id=demo-client-id&code=${secrets[3]}&id_token_hint=${secrets[0]}`)
      // a URL cut to the log's bounds: the cut value is redacted, the marker kept
      yield* call("GET", `/v3/compatible-vehicles?x=1&access_token=${"t".repeat(2_000)}`)
      const expected = [
        "access_token=<redacted>&Client_Secret=<redacted>&page=2&refresh_token=<redacted>&code=<redacted>&state=<redacted>" +
        "&password=<redacted>&code_verifier=<redacted>&access%5Ftoken=<redacted>&flag",
        "response_type=code&client_id=demo-client-id&code=<redacted>&id_token_hint=<redacted>",
        `x=1&access_token=<redacted>...[${"/v3/compatible-vehicles?x=1&access_token=".length + 2_000 - 1_024} more characters]`
      ]
      const inProcess = yield* sim.requests
      assert.deepStrictEqual(inProcess.map((entry) => entry.query), expected)
      const overHttp = yield* call("GET", "/_simulator/requests")
      assert.strictEqual(overHttp.status, 200)
      assert.deepStrictEqual(overHttp.json.requests.map((entry: { readonly query: string }) => entry.query), expected)
      for (const secret of secrets) assert.notInclude(overHttp.text, secret)
      assert.notInclude(overHttp.text, "ttttt")
    }).pipe(Effect.provide(Loopback)))

  it.live("the names the transport redacts in a URL (api_key, key, sig, signature, credential, session, ...) are redacted too, in parameters separated by ; as well", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator
      const secrets = ["AK-0123456789", "K-0123456789", "SG-0123456789", "SIG-0123456789", "CR-0123456789", "SE-0123456789", "AT-0123456789", "AU-0123456789"]
      yield* call(
        "GET",
        `/v3/compatible-vehicles?api_key=${secrets[0]}&KEY=${secrets[1]}&sig=${secrets[2]}&X-Amz-Signature=${secrets[3]}` +
          `&x-amz-credential=${secrets[4]}&session=${secrets[5]}&page=2;access_token=${secrets[6]};auth=${secrets[7]};keyboard=qwerty&apikey=${secrets[0]}`
      )
      const expected = "api_key=<redacted>&KEY=<redacted>&sig=<redacted>&X-Amz-Signature=<redacted>&x-amz-credential=<redacted>" +
        "&session=<redacted>&page=2;access_token=<redacted>;auth=<redacted>;keyboard=qwerty&apikey=<redacted>"
      assert.deepStrictEqual((yield* sim.requests).map((entry) => entry.query), [expected])
      const overHttp = yield* call("GET", "/_simulator/requests")
      assert.strictEqual(overHttp.json.requests[0].query, expected)
      for (const secret of secrets) assert.notInclude(overHttp.text, secret)
    }).pipe(Effect.provide(Loopback)))
})
