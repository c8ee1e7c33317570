/**
 * The token endpoint's answers as section 4.6 has them: a 200 that breaks
 * it is refused with a typed error quoting no token; a lifetime beyond a
 * year is taken as a year. A token endpoint in memory answering one body.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Clock, Effect, Exit, Layer, Redacted } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import * as OAuthConfig from "@connected-vehicle/auth/OAuthConfig"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenExchange from "@connected-vehicle/auth/TokenExchange"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { type ConnectedVehicleError, reasonOf } from "@connected-vehicle/transport/ConnectedVehicleError"
import { Credentials } from "@connected-vehicle/transport/Credentials"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"

/** The services of a token endpoint answering `body` with a 200; `grants()` counts its requests. */
const endpoint = (body: unknown) => {
  let grants = 0
  const client = HttpClient.make((request) =>
    Effect.sync(() => {
      grants++
      return HttpClientResponse.fromWeb(request, new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } }))
    })
  )
  const services = Layer.mergeAll(
    Transport.layer.pipe(Layer.provide([TransportConfig.layerOrigin("http://service.test"), Layer.succeed(HttpClient.HttpClient, client)])),
    OAuthConfig.layer({ clientId: "app", clientSecret: Redacted.make("the-client-secret") }),
    TokenStore.layerMemory
  )
  return { services, grants: () => grants }
}

const secret = "SECRET-ACCESS-TOKEN"
const valid = { access_token: secret, token_type: "Bearer", expires_in: 7200 }

describe("TokenExchange: the token endpoint's answers", () => {
  for (
    const [label, body] of [
      ["expires_in 0", { ...valid, expires_in: 0 }],
      ["expires_in -3600", { ...valid, expires_in: -3600 }],
      ["token_type mac", { ...valid, token_type: "mac" }],
      ["an empty access_token", { ...valid, access_token: "" }],
      ["an access_token of whitespace", { ...valid, access_token: " \t" }],
      ["an access_token a header cannot carry (above U+00FF)", { ...valid, access_token: `${secret}\u2713` }],
      ["an access_token with a CR LF", { ...valid, access_token: `${secret}\r\nx-evil: 1` }],
      ["an access_token with a control character", { ...valid, access_token: `${secret}\u0001` }],
      ["an access_token with a leading space", { ...valid, access_token: ` ${secret}` }],
      ["an access_token with a trailing tab", { ...valid, access_token: `${secret}\t` }],
      ["expires_in 0.001", { ...valid, expires_in: 0.001 }],
      ["expires_in 5e-324", { ...valid, expires_in: 5e-324 }],
      ["expires_in 0.999", { ...valid, expires_in: 0.999 }]
    ] as const
  ) {
    it.effect(`${label}: an InvalidResponse quoting no token, the session fails at each call (one request each)`, () => {
      const { grants, services } = endpoint(body)
      return Effect.gen(function*() {
        const error = yield* Effect.flip(TokenExchange.clientCredentials())
        assert.strictEqual(reasonOf(error)._tag, "InvalidResponse")
        const credentials = yield* Effect.service(Credentials)
        for (let i = 0; i < 3; i++) {
          const exit = yield* Effect.exit(credentials.token)
          assert.isTrue(Exit.isFailure(exit))
          const failure = Exit.isFailure(exit) ? Cause.squash(exit.cause) as ConnectedVehicleError : undefined
          assert.strictEqual(failure?.reason._tag, "Credentials")
          const text = `${Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""} ${JSON.stringify(failure)}`
          assert.include(text, "InvalidResponse")
          assert.notInclude(text, secret)
        }
        assert.strictEqual(grants(), 4)
      }).pipe(Effect.provide(Layer.provideMerge(Session.layerApplication(), services)))
    })
  }

  it.effect("token_type in any case is Bearer", () =>
    Effect.gen(function*() {
      const token = yield* TokenExchange.clientCredentials()
      assert.strictEqual(Redacted.value(token.accessToken), secret)
    }).pipe(Effect.provide(endpoint({ ...valid, token_type: "bearer" }).services)))

  it.effect("an expires_in over a year is taken as a year: the token can be stored, and is used until then", () =>
    Effect.gen(function*() {
      for (const expiresIn of [1e16, 1e306, 365 * 86_400 + 1]) {
        const { grants, services } = endpoint({ ...valid, expires_in: expiresIn })
        yield* Effect.gen(function*() {
          const token = yield* TokenExchange.clientCredentials()
          assert.strictEqual(token.expiresAt - token.issuedAt!, 365 * 86_400_000)
          const credentials = yield* Effect.service(Credentials)
          for (let i = 0; i < 3; i++) assert.strictEqual(Redacted.value(yield* credentials.token), secret)
          assert.strictEqual(grants(), 2)
        }).pipe(Effect.provide(Layer.provideMerge(Session.layerApplication(), services)))
      }
    }))

  it.effect("an access_token a header carries as it is (Latin-1, an inner space) is granted", () =>
    Effect.gen(function*() {
      const token = yield* TokenExchange.clientCredentials()
      assert.strictEqual(Redacted.value(token.accessToken), "to k\u00e9n")
    }).pipe(Effect.provide(endpoint({ ...valid, access_token: "to k\u00e9n" }).services)))

  it.effect("exchangeCode of a code with a lone surrogate, or a redirect URI that is not absolute or has a fragment: an InvalidArgument naming it, nothing sent", () =>
    Effect.gen(function*() {
      const { grants, services } = endpoint({ ...valid, refresh_token: "r" })
      const redirectUri = "https://app.example/cb"
      const cases: ReadonlyArray<readonly [{ readonly code: string; readonly redirectUri: string }, string]> = [
        [{ code: "ab\ud800cd", redirectUri }, "code"],
        [{ code: "\udc00", redirectUri }, "code"],
        [{ code: "", redirectUri }, "code"],
        [{ code: "abc", redirectUri: "../cb" }, "redirectUri"],
        [{ code: "abc", redirectUri: "a\u0000b" }, "redirectUri"],
        [{ code: "abc", redirectUri: " " }, "redirectUri"],
        [{ code: "abc", redirectUri: "\u0085" }, "redirectUri"],
        [{ code: "abc", redirectUri: "https://app.example/cb#x" }, "redirectUri"]
      ]
      for (const [input, field] of cases) {
        const error = yield* Effect.flip(TokenExchange.exchangeCode(input)).pipe(Effect.provide(services))
        assert.instanceOf(error, InvalidArgument, JSON.stringify(input))
        assert.strictEqual((error as InvalidArgument).field, field, JSON.stringify(input))
      }
      const login = yield* Effect.flip(Session.login("user-1", { code: "ab\ud800cd", redirectUri })).pipe(Effect.provide(services))
      assert.strictEqual((login as InvalidArgument).field, "code")
      assert.strictEqual(grants(), 0)
      yield* TokenExchange.exchangeCode({ code: "ab\ud83d\ude00cd", redirectUri: "com.example.app:/cb" }).pipe(Effect.provide(services))
      assert.strictEqual(grants(), 1)
    }))

  it.effect("refresh of what is not a Redacted non-empty string: an InvalidArgument, nothing sent", () =>
    Effect.gen(function*() {
      const { grants, services } = endpoint(valid)
      for (const refreshToken of [undefined, null, "plain", Redacted.make(42), Redacted.make("")]) {
        const error = yield* Effect.flip(TokenExchange.refresh(refreshToken as never)).pipe(Effect.provide(services))
        assert.instanceOf(error, InvalidArgument)
        assert.strictEqual((error as InvalidArgument).field, "refreshToken")
      }
      assert.strictEqual(grants(), 0)
    }))

  it.effect("an empty refresh_token is none: not stored, and a refresh keeps the current refresh token", () =>
    Effect.gen(function*() {
      const { services } = endpoint({ ...valid, refresh_token: "" })
      yield* Effect.gen(function*() {
        const granted = yield* TokenExchange.clientCredentials()
        assert.isUndefined(granted.refreshToken)
        assert.isUndefined(granted.refreshExpiresAt)
        const refreshed = yield* TokenExchange.refresh(Redacted.make("r-1"))
        assert.isUndefined(refreshed.refreshToken)
        // a user's session keeps the refresh token it has
        const store = yield* Effect.service(TokenStore.TokenStore)
        const now = yield* Clock.currentTimeMillis
        yield* store.set("user-1", { accessToken: Redacted.make("old"), issuedAt: now - 7_200_000, expiresAt: now - 1_000, refreshToken: Redacted.make("r-1"), refreshExpiresAt: now + 86_400_000 })
        yield* Effect.flatMap(Effect.service(Credentials), (credentials) => credentials.token).pipe(Effect.provide(Session.layerUser("user-1")))
        const stored = yield* store.get("user-1")
        assert.strictEqual(stored._tag === "Some" ? Redacted.value(stored.value.refreshToken!) : undefined, "r-1")
      }).pipe(Effect.provide(services))
    }))
})
