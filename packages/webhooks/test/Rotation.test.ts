/**
 * Secret rotation: a receiver given `[new, old]` verifies deliveries signed
 * with either and answers `VERIFY` with the one that signed it, over loopback to the three
 * receivers (`effect/http` on NodeHttpServer, the Node adapter, the Web
 * adapter); a bad array is an `InvalidArgument` at start-up. The rotation
 * driven by the simulator's webhook update is in the simulator's
 * `test/webhooks-rotation.test.ts` (this package does not depend on it).
 */
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Result } from "effect"
import { createHmac } from "node:crypto"
import * as NodeAdapter from "../src/NodeAdapter.ts"
import * as Receiver from "../src/Receiver.ts"
import { isValid, makeSecrets, type Secrets, secretsResult, sign, verifyResult } from "../src/Signature.ts"
import * as WebAdapter from "../src/WebAdapter.ts"
import { signed, vehicleStateEvent, verifyEvent } from "./samples.ts"
import { capture, recorder, type Send, targets } from "./utils.ts"

const oldText = "old-management-token-2f8c4e6a"
const newText = "new-management-token-9d1b7a3c"
const third = Redacted.make("third-management-token-5e0f")
const challengeOf = (challenge: string, key: string) => createHmac("sha256", key).update(challenge).digest("hex")

for (const [name, makeTarget] of targets) {
  describe(`${name}: rotation`, () => {
    it.live("[new, old]: deliveries signed with either are handled, a third secret is 401, VERIFY answered with the one that signed it", () =>
      Effect.gen(function*() {
        const rec = recorder()
        const logs = capture()
        const secret: Secrets = [Redacted.make(newText), oldText]
        const send = yield* makeTarget({ secret, handler: rec.handler }, logs.layer)
        const deliver = (input: Send) => Effect.promise(() => send(input))

        const withOld = yield* deliver(signed(JSON.stringify(vehicleStateEvent("evt_old")), Redacted.make(oldText)))
        assert.strictEqual(withOld.status, 200, withOld.text)
        const withNew = yield* deliver(signed(JSON.stringify(vehicleStateEvent("evt_new")), Redacted.make(newText)))
        assert.strictEqual(withNew.status, 200, withNew.text)
        const forged = yield* deliver(signed(JSON.stringify(vehicleStateEvent("evt_third")), third))
        assert.strictEqual(forged.status, 401, forged.text)
        assert.strictEqual(forged.json.error._tag, "InvalidSignature")
        assert.deepStrictEqual(rec.calls.map((e) => e.eventId), ["evt_old", "evt_new"])

        // the challenge is answered with the secret that signed the VERIFY (the one the service holds)
        for (const key of [newText, oldText]) {
          const challenge = yield* deliver(signed(JSON.stringify(verifyEvent("7e6d5c4b")), Redacted.make(key)))
          assert.strictEqual(challenge.status, 200, challenge.text)
          assert.deepStrictEqual(challenge.json, { challenge: challengeOf("7e6d5c4b", key) })
        }
        for (const text of [...logs.lines, withOld.text, withNew.text, forged.text]) {
          assert.notInclude(text, oldText)
          assert.notInclude(text, newText)
        }
      }), { timeout: 30_000 })
  })
}

describe("rotation: the secrets option", () => {
  const handler = () => Effect.void
  const makes: ReadonlyArray<readonly [string, (secret: Secrets) => unknown]> = [
    ["Receiver.make", (secret) => Receiver.make({ secret, handler })],
    ["NodeAdapter.make", (secret) => NodeAdapter.make({ secret, handler }).dispose()],
    ["WebAdapter.make", (secret) => WebAdapter.make({ secret, handler }).dispose()]
  ]

  it("an empty array, or one holding an empty or non-string secret, throws an InvalidArgument naming it, never the secrets", () => {
    const cases: ReadonlyArray<readonly [Secrets, RegExp]> = [
      [[], /^secret: .*non-empty array.*got an empty array$/],
      [[newText, ""], /^secret\[1\]: .*got an empty string$/],
      [[Redacted.make(newText), undefined as unknown as string], /^secret\[1\]: .*got undefined$/],
      [[[newText] as unknown as string], /^secret\[0\]: .*got an array$/]
    ]
    for (const [name, make] of makes) {
      for (const [secret, message] of cases) {
        assert.throws(() => make(secret), InvalidArgument, message, name)
        try {
          make(secret)
        } catch (error) {
          assert.strictEqual((error as InvalidArgument).field, "secret")
          assert.notInclude(String(error), newText)
        }
      }
      // a single secret, or an array of one, is still taken
      assert.doesNotThrow(() => make(newText), name)
      assert.doesNotThrow(() => make([Redacted.make(newText)]), name)
    }
  })

  it("verifyResult, isValid and makeSecrets take the array too; every secret is compared", () => {
    const body = JSON.stringify(vehicleStateEvent("evt_sig"))
    const secrets = [newText, Redacted.make(oldText)] as const
    assert.isTrue(isValid(body, sign(body, oldText), secrets))
    assert.isTrue(isValid(body, sign(body, newText), secrets))
    assert.isFalse(isValid(body, sign(body, third), secrets))
    const forged = verifyResult(body, sign(body, third), secrets)
    assert.isTrue(Result.isFailure(forged) && forged.failure._tag === "InvalidSignature")
    assert.isTrue(Result.isFailure(secretsResult([])))
    const [current, previous] = makeSecrets(secrets)
    assert.strictEqual(Redacted.value(current), newText)
    assert.strictEqual(Redacted.value(previous!), oldText)
  })
})
