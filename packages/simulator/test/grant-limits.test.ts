/**
 * Live authorization codes, access tokens and refresh tokens are bounded: a
 * flood of `GET /oauth/authorize` (no credential needed) or of token requests
 * keeps at most a fixed number of each, the oldest forgotten first (a
 * sixteenth of the limit at a time), so the simulator's memory stays bounded
 * however long the flood lasts.
 */
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { assert, describe, it } from "@effect/vitest"
import { allPermissions } from "../src/Data.ts"
import { layer as simulatorLayer } from "../src/Simulator.ts"
import { CODE_LIMIT, FAULT_KEY_LIMIT, State, TOKEN_LIMIT, TOMBSTONE_LIMIT, USED_CODE_LIMIT } from "../src/State.ts"
import { thrown } from "./helpers.ts"

const grant = { userIndex: 0, scopes: new Set(allPermissions), mode: "live" as const, redirectUri: "http://127.0.0.1:9/cb" }

describe("live grants are bounded", () => {
  it("an authorize flood keeps at most CODE_LIMIT codes, the newest", () => {
    const state = new State({ now: () => 0, seed: 1, failureRate: 0 })
    const codes = Array.from({ length: CODE_LIMIT + 5 }, () => state.issueCode(grant))
    assert.isAtMost(state.sizes().codes, CODE_LIMIT)
    assert.isUndefined(state.takeCode(codes[0]!)) // forgotten: invalid_grant
    const newest = state.takeCode(codes.at(-1)!)
    assert.strictEqual(typeof newest === "object" ? newest.redirectUri : newest, grant.redirectUri)
  })

  it("a token flood keeps at most TOKEN_LIMIT access and refresh tokens, the newest", () => {
    const state = new State({ now: () => 0, seed: 1, failureRate: 0 })
    const apps = Array.from({ length: TOKEN_LIMIT + 5 }, () => state.issueAppToken())
    assert.isAtMost(state.sizes().access, TOKEN_LIMIT)
    assert.isUndefined(state.grantOf(apps[0]!))
    assert.strictEqual((state.grantOf(apps.at(-1)!) as { readonly _tag: string })._tag, "App")
    const users = Array.from({ length: TOKEN_LIMIT + 5 }, (_, family) => state.issueUserTokens({ ...grant, family }))
    assert.isAtMost(state.sizes().access, TOKEN_LIMIT)
    assert.isAtMost(state.sizes().refresh, TOKEN_LIMIT)
    assert.isUndefined(state.takeRefresh(users[0]!.refreshToken))
    assert.strictEqual((state.takeRefresh(users.at(-1)!.refreshToken) as { readonly userIndex: number }).userIndex, 0)
  })

  it("the limits are options: a state keeps what it is told to", () => {
    const state = new State({ now: () => 0, seed: 1, failureRate: 0, codeLimit: 32, tokenLimit: 48 })
    const codes = Array.from({ length: 100 }, () => state.issueCode(grant))
    assert.isAtMost(state.sizes().codes, 32)
    assert.isUndefined(state.takeCode(codes[0]!))
    assert.isDefined(state.takeCode(codes.at(-1)!))
    const apps = Array.from({ length: 100 }, () => state.issueAppToken())
    assert.isAtMost(state.sizes().access, 48)
    assert.isUndefined(state.grantOf(apps[0]!))
    assert.isDefined(state.grantOf(apps.at(-1)!))
  })

  it("exchanged codes: at most USED_CODE_LIMIT remembered, the newest (a replay of one revokes), the oldest forgotten", () => {
    const state = new State({ now: () => 0, seed: 1, failureRate: 0 })
    const codes: Array<string> = []
    for (let i = 0; i < USED_CODE_LIMIT + 700; i++) {
      codes.push(state.issueCode(grant))
      assert.strictEqual(typeof state.takeCode(codes.at(-1)!), "object")
      assert.isAtMost(state.sizes().usedCodes, USED_CODE_LIMIT)
    }
    assert.isAtLeast(state.sizes().usedCodes, USED_CODE_LIMIT - USED_CODE_LIMIT / 16)
    assert.strictEqual(state.takeCode(codes.at(-1)!), "replayed")
    assert.isUndefined(state.takeCode(codes[0]!))
  })

  it("expired access tokens: at most TOMBSTONE_LIMIT still answer expired, the newest", () => {
    let now = 0
    const state = new State({ now: () => now, seed: 1, failureRate: 0, accessSeconds: 1 })
    const tokens = Array.from({ length: TOMBSTONE_LIMIT + 700 }, () => state.issueAppToken())
    now = 5_000
    for (const token of tokens) {
      assert.strictEqual(state.grantOf(token), "expired")
      assert.isAtMost(state.sizes().expired, TOMBSTONE_LIMIT)
    }
    assert.isAtLeast(state.sizes().expired, TOMBSTONE_LIMIT - TOMBSTONE_LIMIT / 16)
    assert.strictEqual(state.grantOf(tokens.at(-1)!), "expired")
    assert.isUndefined(state.grantOf(tokens[0]!))
  })

  it("fault keys: at most FAULT_KEY_LIMIT runs remembered, the newest; a forgotten key starts a new run", () => {
    const state = new State({ now: () => 0, seed: 1, failureRate: 0 })
    const keys = Array.from({ length: FAULT_KEY_LIMIT + 300 }, (_, i) => `run-${i}`)
    for (const key of keys) {
      assert.isTrue(state.takeKeyed(key, "status=500;times=1", 1))
      assert.isAtMost(state.sizes().faultKeys, FAULT_KEY_LIMIT)
    }
    const kept = state.sizes().faultKeys
    assert.isAtLeast(kept, FAULT_KEY_LIMIT - FAULT_KEY_LIMIT / 16)
    for (const key of keys.slice(-kept)) assert.isFalse(state.takeKeyed(key, "status=500;times=1", 1), key) // its run is over
    assert.isTrue(state.takeKeyed(keys[0]!, "status=500;times=1", 1)) // forgotten: a new run
  })

  it("grantLimits that are not whole numbers of at least 1 are refused when the layer is made: an InvalidArgument naming the field", () => {
    for (const grantLimits of [...[{ codes: 0 }, { tokens: 1.5 }, { tokens: Number.NaN }], null, 5] as const) {
      const error = thrown(() => simulatorLayer({ grantLimits: grantLimits as never }))
      assert.instanceOf(error, InvalidArgument, JSON.stringify(grantLimits))
      assert.match((error as InvalidArgument).field, /^grantLimits/)
    }
  })
})
