/**
 * The one rule of a secret given as text (`Redaction.secretText`): the white
 * space around it trimmed (a trailing space, CR or CRLF of an env file or a
 * mounted secret), a control character inside or a lone surrogate refused,
 * white space only an empty secret (the caller says whether it is missing).
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { secretText } from "../src/Redaction.ts"

describe("secretText", () => {
  it("trims the white space around the secret", () => {
    for (const text of ["tok-123", "tok-123 ", "tok-123\r", "tok-123\r\n", " \ttok-123\n", "\u00a0tok-123\u2028"]) {
      assert.deepStrictEqual(secretText(text), Result.succeed("tok-123"), JSON.stringify(text))
    }
    assert.deepStrictEqual(secretText("tok 123"), Result.succeed("tok 123"))
    assert.deepStrictEqual(secretText(" \t\r\n"), Result.succeed(""))
  })

  it("refuses a control character inside and a lone surrogate, never quoting the text", () => {
    for (const text of ["tok\u001b[2J123", "tok\u0000123\n", "tok\r123", "tok\u007f", "tok\u009b1", "\ttok\t123"]) {
      assert.deepStrictEqual(secretText(text), Result.fail("holds a control character"), JSON.stringify(text))
    }
    assert.deepStrictEqual(secretText("tok\ud800"), Result.fail("not UTF-8 text"))
    assert.deepStrictEqual(secretText("\ude00tok "), Result.fail("not UTF-8 text"))
  })
})
