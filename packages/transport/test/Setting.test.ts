import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { Keyword } from "@connected-vehicle/transport/Setting"

describe("Setting.Keyword", () => {
  it("decodes one of the words in any case, white space around it ignored; another word is refused, listing them", () => {
    const decode = Schema.decodeUnknownExit(Keyword(["on", "off"]))
    for (const [given, word] of [["on", "on"], ["OFF", "off"], [" On\t", "on"]] as const) {
      const exit = decode(given)
      assert.isTrue(exit._tag === "Success" && exit.value === word, given)
    }
    for (const given of ["of", "o n", "", 1]) {
      const exit = decode(given)
      assert.strictEqual(exit._tag, "Failure", String(given))
    }
    assert.include(String(decode("maybe")), "\"off\"")
  })
})
