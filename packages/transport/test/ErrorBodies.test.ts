/**
 * Error bodies over a real loopback server: a secret the server echoes
 * escaped or percent-encoded is redacted like one echoed as sent, and an
 * OAuth body (`{ error, error_description }`) is the `OAuth` reason only on
 * the authorization server's endpoints (elsewhere the envelope, then the
 * status, decides).
 */
import { inspect } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger, Redacted, References } from "effect"
import { AuthorizationApi, LegacyApi, VehicleApi } from "@connected-vehicle/schema/Api"
import type { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { ServiceReason } from "@connected-vehicle/schema/ServiceReason"
import type { ConnectedVehicleError, OAuth } from "@connected-vehicle/transport/ConnectedVehicleError"
import { reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "../src/UndiciHttpClient.ts"
import { HttpClientRequest } from "effect/http"
import { scrubber, scrubText, secretsOf } from "../src/internal/redact.ts"
import { flipReason, server } from "./utils.ts"

const bearer = "tok/en+value=="
const refreshToken = "rt/ab+cd=="
const clientSecret = "s3cr/et+key"

/** The transport with the bearer `bearer`, one attempt per call, its debug lines in `lines`. */
const on = (origin: string, lines: Array<string>) =>
  Layer.mergeAll(
    Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make(bearer))).pipe(
      Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), UndiciHttpClient.layer()])
    ),
    Logger.layer([Logger.make((options) => {
      lines.push(inspect([options.message, options.fiber.getRef(References.CurrentLogAnnotations)], { depth: 10 }))
    })]),
    Layer.succeed(References.MinimumLogLevel, "Debug")
  )

/** A server that answers every request with `status` and the JSON text `body(request body)`. */
const answering = (status: number, body: (requestBody: string) => string) =>
  server((request, response) => {
    let text = ""
    request.on("data", (chunk) => text += chunk)
    request.on("end", () => {
      response.writeHead(status, { "content-type": "application/json" })
      response.end(body(text))
    })
  })

const tokenWith = (refresh: string) =>
  Effect.flatMap(Transport.publicClient(AuthorizationApi, "oauth"), (oauth) =>
    oauth.token({
      headers: { authorization: `Basic ${Buffer.from(`the-client:${clientSecret}`).toString("base64")}` },
      payload: { grant_type: "refresh_token", refresh_token: refresh }
    }))

const token = tokenWith(refreshToken)

const getSignal = Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
  signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } }))

const getOdometer = Effect.flatMap(Transport.client(LegacyApi, "legacy"), (legacy) =>
  legacy.odometer({ params: { id: "v-1" } }))

/** Percent-encoding of every character RFC 3986 reserves (PHP's `rawurlencode`: `!*'()` too). */
const strict = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

/** HTML-escaped. */
const html = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\"", "&quot;")

/**
 * Every form of `secret` that would show it: as sent, percent-encoded (either case, mixed, strict,
 * keeping `/` as Python's `quote` does, twice), form-encoded, JSON-escaped with `\/`, HTML-escaped.
 */
const formsOf = (secret: string) => [
  secret,
  encodeURIComponent(secret),
  encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (s) => s.toLowerCase()),
  encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (s, i: number) => i % 2 === 0 ? s.toLowerCase() : s),
  strict(secret),
  encodeURIComponent(secret).replaceAll("%2F", "/"),
  encodeURIComponent(encodeURIComponent(secret)),
  new URLSearchParams({ s: secret }).toString().slice(2),
  secret.replaceAll("/", "\\/"),
  html(secret)
]

/** The forms of `secrets` that `error` (its message, `String`, `inspect`, `JSON.stringify`) or the log `lines` show. */
const leaks = (error: unknown, lines: ReadonlyArray<string>, secrets: ReadonlyArray<string>) => {
  const texts = [String(error), (error as Error).message, inspect(error, { depth: 10 }), JSON.stringify(error), ...lines]
  return secrets.flatMap(formsOf).filter((form) => texts.some((text) => text.includes(form)))
}

/** `\uXXXX` for every character of `text`. */
const uEscaped = (text: string) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")

describe("secrets echoed escaped or encoded", () => {
  const oauthBodies: ReadonlyArray<readonly [string, (requestBody: string) => string]> = [
    // a token endpoint that quotes the raw (form-encoded) request body
    ["the form body quoted", (body) => JSON.stringify({ error: "invalid_grant", error_description: `bad request: ${body}` })],
    ["PHP-style \\/ escapes", () => `{"error":"invalid_grant","error_description":"refresh token ${refreshToken.replaceAll("/", "\\/")} of ${clientSecret.replaceAll("/", "\\/")} revoked"}`],
    ["\\u escapes of every character", () => `{"error":"invalid_grant","error_description":"refresh token ${uEscaped(refreshToken)} of ${uEscaped(clientSecret)} revoked"}`],
    ["lower-case percent-encoding", () => JSON.stringify({ error: "invalid_grant", error_description: `refresh_token=${formsOf(refreshToken)[2]}` })],
    ["encodeURIComponent", () => JSON.stringify({ error: "invalid_grant", error_description: `for ${encodeURIComponent(clientSecret)}` })]
  ]
  // each form a server may echo a secret in, for secrets with the characters that form changes
  const echoed: ReadonlyArray<readonly [string, string, number]> = [
    ["mixed-case percent-encoding", "rt/ab+cd==", 3],
    ["RFC 3986 strict (rawurlencode)", "rt!ab*cd(1)", 4],
    ["Python's quote (keeps /)", "rt/ab+cd==", 5],
    ["percent-encoded twice", "rt/ab+cd==", 6],
    ["HTML-escaped", "rt&ab<cd>ef", 9],
    // secrets that hold what an encoding writes (RFC 6749 allows `%` and `&` in them)
    ["encodeURIComponent, a secret holding %25xx", "rt-%2541bc-9f8e7d", 1],
    ["percent-encoded twice, a secret holding %4F", "rt-%4Fbc-9f8e7d", 6],
    ["HTML-escaped, a secret holding &amp;", "rt-&amp;-9f8e7d", 9]
  ]
  for (const [name, secret, form] of echoed) {
    it.live(`token endpoint, a refresh token echoed ${name}: redacted`, () =>
      Effect.gen(function*() {
        const shown = formsOf(secret)[form]!
        assert.notStrictEqual(shown, secret)
        const service = yield* answering(400, () => JSON.stringify({ error: "invalid_grant", error_description: `refresh_token ${shown} revoked` }))
        const lines: Array<string> = []
        const error = yield* Effect.flip(tokenWith(secret).pipe(Effect.provide(on(service.origin, lines))))
        assert.strictEqual(reasonOf(error)._tag, "OAuth")
        assert.deepStrictEqual(leaks(error, lines, [secret]), [])
        assert.include(error.message, "<redacted>")
      }).pipe(Effect.scoped))
  }

  it("a credential header of another name than authorization (a gateway's key) is one of the request's secrets", () => {
    const request = HttpClientRequest.setHeaders(HttpClientRequest.get("http://127.0.0.1:1/v3/vehicles"), {
      "ocp-apim-subscription-key": "gw-KEY-0123456789abcdef",
      "idempotency-key": "not-a-secret-0001"
    })
    assert.deepStrictEqual(secretsOf(request), ["gw-KEY-0123456789abcdef"])
    assert.strictEqual(scrubber(secretsOf(request)).text("key gw-KEY-0123456789abcdef refused"), "key <redacted> refused")
  })

  it("a secret HTML-escaped twice, or HTML-escaped then percent- or form-encoded: redacted", () => {
    const secret = "rt-Tr0ub&dor3!-9f8e"
    const scrub = scrubber([secret])
    for (const shown of [html(html(secret)), encodeURIComponent(html(secret)), new URLSearchParams({ a: html(secret) }).toString().slice(2)]) {
      assert.strictEqual(scrub.text(`refresh_token ${shown} revoked`), "refresh_token <redacted> revoked", shown)
    }
  })

  it("a cookie named as no credential, and a scheme's credential with base64 padding or a Basic password", () => {
    const cookies = HttpClientRequest.setHeaders(HttpClientRequest.get("http://127.0.0.1:1/v3/vehicles"), {
      cookie: "session=9f8e7d6c5b4a39281706; consent=accepted; theme=system; device=mobile"
    })
    assert.strictEqual(
      scrubber(secretsOf(cookies)).text("command accepted; the system will notify the mobile app (session 9f8e7d6c5b4a39281706)"),
      "command accepted; the system will notify the mobile app (session <redacted>)"
    )
    const schemes = HttpClientRequest.setHeaders(HttpClientRequest.get("http://127.0.0.1:1/v3/vehicles"), {
      "proxy-authorization": "Bearer gw0123456789abcdefXYZ==",
      "x-auth": `Basic ${Buffer.from("user:s3cret-password").toString("base64")}`
    })
    assert.strictEqual(
      scrubber(secretsOf(schemes)).text("token gw0123456789abcdefXYZ== rejected; password s3cret-password"),
      "token <redacted> rejected; password <redacted>"
    )
  })

  it("a credential header's credential after its scheme, and each cookie's value, are secrets too", () => {
    const request = HttpClientRequest.setHeaders(HttpClientRequest.get("http://127.0.0.1:1/v3/vehicles"), {
      cookie: "theme=dark; session=9f8e7d6c5b4a39281706",
      "proxy-authorization": "Bearer gw-Tok-0123456789",
      "x-auth": "Token k-0123456789ab"
    })
    const text = scrubber(secretsOf(request)).text("session 9f8e7d6c5b4a39281706 expired; token gw-Tok-0123456789 expired; key k-0123456789ab unknown; theme dark")
    assert.strictEqual(text, "session <redacted> expired; token <redacted> expired; key <redacted> unknown; theme dark")
  })

  it("the spellings of encoders and escapers servers use: each redacted", () => {
    const cases: ReadonlyArray<readonly [string, string, string]> = [
      ["Go url.PathEscape (keeps + and =)", "tok/en+value==", "tok%2Fen+value=="],
      ["JS escape() (keeps + and /)", "tok/en+value==", "tok/en+value%3D%3D"],
      ["Go QueryEscape / quote_plus / CGI.escape, a space", "my pass~word", "my+pass~word"],
      [".NET WebUtility.UrlEncode", "ab~cd!ef", "ab%7Ecd!ef"],
      ["Handlebars (= as &#x3D;)", "tok/en+value==", "tok/en+value&#x3D;&#x3D;"],
      ["Go html/template (+ as &#43;)", "tok/en+value==", "tok/en&#43;value=="],
      ["PHP htmlspecialchars ENT_QUOTES (&#039;)", "pa'ss-word", "pa&#039;ss-word"],
      ["a URL's re-encoding of quotes and braces", "rt\"ab'cd{e}f", "https://x.example/cb?next=rt%22ab%27cd{e}f"],
      ["a run with a byte that is not UTF-8", "tok/en+value==", "q=%FF%2F%2Btok%2Fen+value%3D%3D"]
    ]
    for (const [name, secret, shown] of cases) {
      const text = scrubber([secret]).text(`detail: ${shown} end`)
      assert.include(text, "<redacted>", name)
      assert.notInclude(text, secret, name)
      // the request id's scrub (every response) gives what the scrubber gives, with or without a secret in the text
      for (const given of [`detail: ${shown} end`, shown, `req-${name.length}`, "short", ""]) {
        assert.strictEqual(scrubText([secret, `Bearer ${secret}`], given), scrubber([secret, `Bearer ${secret}`]).text(given), `${name}: ${given}`)
      }
    }
  })

  it("two secrets that share characters are both hidden whole; a text without a secret is kept as it is", () => {
    const scrub = scrubber(["abcdefgh1234", "1234ijklmnop", "++++++"])
    assert.strictEqual(scrub.text("x abcdefgh1234ijklmnop y"), "x <redacted> y")
    assert.strictEqual(scrub.text("100%41 and %2B kept?"), "100%41 and %2B kept?")
  })

  it.live("a secret the body holds as a JSON number: the body is still read as JSON (its OAuth error kept)", () =>
    Effect.gen(function*() {
      const service = yield* answering(400, () => `{"error":"invalid_grant","error_description":"expired","code":123456789}`)
      const error = yield* Effect.flip(tokenWith("123456789").pipe(Effect.provide(on(service.origin, []))))
      assert.strictEqual(reasonOf(error)._tag, "OAuth")
      assert.strictEqual((reasonOf(error) as OAuth).error, "invalid_grant")
    }).pipe(Effect.scoped))

  it.live("a refused redirect whose Location carries the bearer (encoded): the location redacted", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(302, { location: `https://sso.example/continue?t=${encodeURIComponent(bearer)}&next=/v3/x` })
        response.end()
      })
      const error = yield* Effect.flip(getSignal.pipe(Effect.provide(on(service.origin, []))))
      const reason = reasonOf(error) as { readonly _tag: string; readonly location?: string }
      assert.strictEqual(reason._tag, "UnexpectedStatus")
      assert.include(reason.location, "https://sso.example/continue?t=<redacted>")
      assert.deepStrictEqual(leaks(error, [], [bearer]), [])
    }).pipe(Effect.scoped))

  for (const [name, body] of oauthBodies) {
    it.live(`token endpoint, ${name}: the OAuth reason, its description redacted`, () =>
      Effect.gen(function*() {
        const service = yield* answering(400, body)
        const lines: Array<string> = []
        const error = yield* Effect.flip(token.pipe(Effect.provide(on(service.origin, lines))))
        assert.strictEqual(reasonOf(error)._tag, "OAuth")
        assert.deepStrictEqual(leaks(error, lines, [refreshToken, clientSecret]), [])
        assert.include(error.message, "<redacted>")
        assert.isNotEmpty(lines)
      }).pipe(Effect.scoped))
  }

  it.live("a bearer token echoed escaped in an envelope's detail, title and meta is redacted in every field", () =>
    Effect.gen(function*() {
      const echoed = [bearer.replaceAll("/", "\\/"), uEscaped(bearer), encodeURIComponent(bearer)]
      const service = yield* answering(
        401,
        () =>
          `{"errors":[{"status":"401","type":"AUTHENTICATION","code":"UNAUTHORIZED","title":"Unauthorized ${echoed[1]}",` +
          `"detail":"token ${echoed[0]} is not valid (${echoed[2]})","meta":{"debug":{"origin":"${echoed[1]}"}}}]}`
      )
      const lines: Array<string> = []
      const error = yield* Effect.flip(getSignal.pipe(Effect.provide(on(service.origin, lines))))
      assert.strictEqual(reasonOf(error)._tag, "Authentication")
      assert.deepStrictEqual(leaks(error, lines, [bearer]), [])
      assert.include(error.message, "<redacted>")
    }).pipe(Effect.scoped))
})

describe("an OAuth body is read only from the authorization server", () => {
  const cases: ReadonlyArray<readonly [number, unknown, string]> = [
    [401, { error: "invalid_token" }, "Authentication"],
    [404, { status: 404, error: "Not Found", path: "/v3/vehicles" }, "NotFound"],
    [502, { error: "bad gateway" }, "Upstream"],
    [400, { error: "invalid_grant", error_description: "revoked" }, "Validation"]
  ]
  const calls: ReadonlyArray<readonly [string, Effect.Effect<unknown, ConnectedVehicleError | InvalidArgument, Transport.Transport | Credentials.Credentials>]> = [
    ["v3", getSignal],
    ["v2.0", getOdometer]
  ]
  for (const [endpoint, call] of calls) {
    it.live(`${endpoint}: a gateway's JSON { error } is the status's reason, never OAuth`, () =>
      Effect.gen(function*() {
        for (const [status, body, tag] of cases) {
          const service = yield* answering(status, () => JSON.stringify(body))
          const error = yield* flipReason(call.pipe(Effect.provide(on(service.origin, []))))
          assert.strictEqual(error._tag, tag, JSON.stringify(body))
          assert.strictEqual((error as ServiceReason).status, status)
          service.close()
        }
      }).pipe(Effect.scoped))
  }

  it.live("v3: the envelope decides a body that also has an error", () =>
    Effect.gen(function*() {
      const envelope = { errors: [{ status: "404", type: "RESOURCE_NOT_FOUND", code: "NOT_FOUND", title: "Not Found", detail: "no such vehicle" }] }
      const service = yield* answering(404, () => JSON.stringify({ error: "invalid_grant", ...envelope }))
      const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, []))))
      assert.strictEqual(error._tag, "NotFound")
      assert.strictEqual((error as ServiceReason).detail, "no such vehicle")
    }).pipe(Effect.scoped))

  it.live("the token endpoint: the same bodies are OAuth errors", () =>
    Effect.gen(function*() {
      for (const [status, body] of cases) {
        const service = yield* answering(status, () => JSON.stringify(body))
        const error = yield* flipReason(token.pipe(Effect.provide(on(service.origin, []))))
        assert.strictEqual(error._tag, "OAuth", JSON.stringify(body))
        assert.strictEqual((error as OAuth).error, (body as { error: string }).error)
        assert.strictEqual((error as OAuth).status, status)
        service.close()
      }
    }).pipe(Effect.scoped))
})
