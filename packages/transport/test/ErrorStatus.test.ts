/**
 * An error status whose body is not the section 7 envelope (a gateway's HTML
 * page, an empty or plain-text body, JSON of another shape, a body cut short)
 * is the reason of its status: a 401 `Authentication`, a 404 `NotFound`, a
 * 5xx `Server` or `Upstream`... (`MalformedBody` only for a 4xx the service
 * gives no meaning). The status decides the retry: a non-retryable status
 * whose body is cut fails at once. Small `node:http` servers on 127.0.0.1.
 */
import { assert, describe, it } from "@effect/vitest"
import { gzipSync } from "node:zlib"
import { Duration, Effect, Layer, Redacted } from "effect"
import { NodeHttpClient } from "@effect/platform-node"
import { FetchHttpClient } from "effect/http"
import { AuthorizationApi, VehicleApi } from "@connected-vehicle/schema/Api"
import type { ServiceReason } from "@connected-vehicle/schema/ServiceReason"
import * as Credentials from "@connected-vehicle/transport/Credentials"
import type { InvalidResponse, MalformedBody } from "@connected-vehicle/transport/ConnectedVehicleError"
import * as RetryAfter from "@connected-vehicle/transport/RetryAfter"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { signalResponse } from "./signals.ts"
import { flipReason, server } from "./utils.ts"

const on = (origin: string, options?: Omit<TransportConfig.Options, "roots">, credentials = Credentials.layerStatic(Redacted.make("the-token"))) =>
  Layer.mergeAll(Transport.layer, credentials).pipe(
    Layer.provide([TransportConfig.layerOrigin(origin, options), NodeHttpClient.layerUndici])
  )

const getSignal = Effect.flatMap(Transport.client(VehicleApi, "signals"), (signals) =>
  signals.get({ params: { vehicleId: "v-1", signalCode: "odometer" }, headers: { "sc-user-id": "u-1" } }))

const quick = { retry: { maxAttempts: 3, initialDelay: 1, maxDelay: 1 } }

const token = Effect.flatMap(Transport.publicClient(AuthorizationApi, "oauth"), (oauth) =>
  oauth.token({ headers: { authorization: "Basic Yzpz" }, payload: { grant_type: "client_credentials" } }))

/** The transport on the SDK's undici client instead of Effect's. */
const onUndici = (origin: string) =>
  Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("the-token"))).pipe(
    Layer.provide([TransportConfig.layerOrigin(origin, { retry: { maxAttempts: 1 } }), UndiciHttpClient.layer({ connections: 2 })])
  )

/** A credential that refreshes every time it is asked (the transport asks once per call). */
const refreshing = () => {
  let refreshes = 0
  const layer = Layer.succeed(Credentials.Credentials, {
    token: Effect.sync(() => Redacted.make(`token-${refreshes}`)),
    refresh: () => Effect.sync(() => (++refreshes, true))
  })
  return { layer, refreshes: () => refreshes }
}

describe("an error status without the envelope is the reason of its status", () => {
  it.live("a 401 with an empty, blank (white space only) or plain-text body, after the one refresh-and-replay, is Authentication", () =>
    Effect.gen(function*() {
      for (const [body, note] of [["", "the body is empty"], [" \r\n\t".repeat(1_250), "the body is blank"], ["Unauthorized", "the body is not JSON"]] as const) {
        const service = yield* server((_, response) => {
          response.writeHead(401, { "content-type": "text/plain" })
          response.end(body)
        })
        const credentials = refreshing()
        const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, quick, credentials.layer))))
        assert.strictEqual(error._tag, "Authentication", JSON.stringify(body))
        const reason = error as ServiceReason
        assert.strictEqual(reason.status, 401)
        assert.strictEqual(reason.type, "AUTHENTICATION")
        assert.strictEqual(reason.code, "UNAUTHORIZED")
        assert.include(reason.detail, note)
        assert.deepStrictEqual(reason.errors, [])
        assert.isFalse(reason.isRetryable)
        assert.strictEqual(credentials.refreshes(), 1)
        assert.strictEqual(service.requests.length, 2)
        service.close()
      }
    }).pipe(Effect.scoped))

  it.live("a refresh that hands back the rejected token: the 401 is the call's, the request not replayed with it", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(401, { "content-type": "text/plain" })
        response.end("Unauthorized")
      })
      let refreshes = 0
      const same = Layer.succeed(Credentials.Credentials, {
        token: Effect.succeed(Redacted.make("the-token")),
        refresh: () => Effect.sync(() => (++refreshes, true))
      })
      const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, quick, same))))
      assert.strictEqual(error._tag, "Authentication")
      assert.strictEqual(refreshes, 1)
      assert.strictEqual(service.requests.length, 1, "the rejected token was sent again")
      service.close()
    }).pipe(Effect.scoped))

  it.live("each status picks its reason; the detail says what the body was, never the body", () =>
    Effect.gen(function*() {
      const cases = [
        [400, "<html>bad request</html>", "Validation"],
        [403, "Forbidden by the-token policy", "PermissionDenied"],
        [404, "{\"message\":\"no route\"}", "NotFound"],
        [409, "", "VehicleState"],
        [418, "<html>teapot</html>", "MalformedBody"]
      ] as const
      for (const [status, body, tag] of cases) {
        const service = yield* server((_, response) => {
          response.writeHead(status, { "content-type": "text/html" })
          response.end(body)
        })
        const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, quick))))
        assert.strictEqual(error._tag, tag, `${status}`)
        assert.strictEqual((error as ServiceReason | MalformedBody).status, status)
        const text = tag === "MalformedBody" ? (error as MalformedBody).description : (error as ServiceReason).detail
        if (body !== "") assert.notInclude(text, body)
        assert.notInclude(error.message, "the-token")
        assert.strictEqual(service.requests.length, 1, `${status} is not retried`)
        service.close()
      }
    }).pipe(Effect.scoped))

  it.live("a gateway's 502 or 503 HTML page is Upstream or Server, retried, with its Retry-After", () =>
    Effect.gen(function*() {
      for (const [status, tag] of [[502, "Upstream"], [503, "Server"]] as const) {
        const service = yield* server((_, response) => {
          response.writeHead(status, { "content-type": "text/html", "retry-after": "0" })
          response.end("<html><body><h1>Bad Gateway</h1></body></html>")
        })
        const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, quick))))
        assert.strictEqual(error._tag, tag)
        const reason = error as ServiceReason
        assert.strictEqual(reason.status, status)
        assert.isTrue(reason.isRetryable)
        assert.strictEqual(Duration.toMillis(reason.retryAfter!), 0)
        assert.include(reason.detail, "not JSON")
        assert.strictEqual(service.requests.length, 3)
        service.close()
      }
    }).pipe(Effect.scoped))

  it.live("a proxy's 408 is Validation and retryable (Effect's transient statuses): a GET is sent again", () =>
    Effect.gen(function*() {
      let calls = 0
      const service = yield* server((_, response) => {
        if (++calls === 1) {
          response.writeHead(408, { "content-type": "text/plain", connection: "close" })
          return response.end("Request Timeout")
        }
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify(signalResponse))
      })
      const result = yield* getSignal.pipe(Effect.provide(on(service.origin, quick)))
      assert.strictEqual(result.status, 200)
      assert.strictEqual(service.requests.length, 2)
      service.close()
      const always = yield* server((_, response) => {
        response.writeHead(408, { "content-type": "text/plain" })
        response.end("Request Timeout")
      })
      const error = yield* flipReason(getSignal.pipe(Effect.provide(on(always.origin, quick))))
      assert.strictEqual(error._tag, "Validation")
      assert.strictEqual((error as ServiceReason).status, 408)
      assert.isTrue((error as ServiceReason).isRetryable)
      assert.strictEqual(always.requests.length, 3)
    }).pipe(Effect.scoped))

  it.live("a 429 without the envelope says what its body was, as every other status does", () =>
    Effect.gen(function*() {
      const cases = [
        ["<html>slow down</html>", "the body is not JSON"],
        ["", "the body is empty"],
        [" ".repeat(5_000), "the body is blank"],
        ["{}", "the body is JSON that is not the error envelope"]
      ] as const
      for (const [body, note] of cases) {
        const service = yield* server((_, response) => {
          response.writeHead(429, { "content-type": "text/html", "retry-after": "0" })
          response.end(body)
        })
        const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, { retry: { maxAttempts: 1 } }))))
        assert.strictEqual(error._tag, "RateLimit")
        const reason = error as ServiceReason
        assert.strictEqual(reason.detail, `Too Many Requests (no error envelope: ${note})`)
        assert.strictEqual(reason.code, "RATE_LIMITED")
        service.close()
      }
    }).pipe(Effect.scoped))

  it.live("a huge Retry-After is at most RetryAfter.maxDelay, and not waited (over maxWait): the call fails at once", () =>
    Effect.gen(function*() {
      for (const value of ["999999999", "9".repeat(400)]) {
        const service = yield* server((_, response) => {
          response.writeHead(503, { "content-type": "text/plain", "retry-after": value })
          response.end("busy")
        })
        const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, quick))))
        assert.strictEqual(error._tag, "Server")
        assert.strictEqual(Duration.toMillis((error as ServiceReason).retryAfter!), Duration.toMillis(RetryAfter.maxDelay))
        assert.strictEqual(Duration.toMillis(RetryAfter.maxDelay), 2 ** 31 - 1)
        assert.strictEqual(service.requests.length, 1)
        service.close()
      }
    }).pipe(Effect.scoped))
})

describe("a body that came compressed (the SDK asks for no content-encoding)", () => {
  it.live("a gzip 200 is an InvalidResponse and a gzip 503 a Server whose detail names the encoding", () =>
    Effect.gen(function*() {
      for (const [status, tag] of [[200, "InvalidResponse"], [503, "Server"]] as const) {
        const service = yield* server((_, response) => {
          response.writeHead(status, { "content-type": "application/json", "content-encoding": "gzip" })
          response.end(gzipSync(JSON.stringify(status === 200 ? signalResponse : { statusCode: 503 })))
        })
        const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, { retry: { maxAttempts: 1 } }))))
        assert.strictEqual(error._tag, tag)
        const text = "description" in error ? String(error.description) : (error as ServiceReason).detail
        assert.include(text, "the body is not JSON (it came with content-encoding: gzip, still encoded: the SDK asks for none, accept-encoding: identity, and decodes none)")
        service.close()
      }
    }).pipe(Effect.scoped))

  it.live("a body a client decoded (fetch asks for gzip and decodes it) is not said to be still encoded", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(502, { "content-type": "text/html", "content-encoding": "gzip" })
        response.end(gzipSync("<html><body>Bad Gateway</body></html>"))
      })
      const layer = Layer.mergeAll(Transport.layer, Credentials.layerStatic(Redacted.make("the-token"))).pipe(
        Layer.provide([TransportConfig.layerOrigin(service.origin, { retry: { maxAttempts: 1 } }), FetchHttpClient.layer])
      )
      const error = yield* flipReason(getSignal.pipe(Effect.provide(layer)))
      assert.strictEqual(error._tag, "Upstream")
      assert.include((error as ServiceReason).detail, "the body is not JSON")
      assert.notInclude((error as ServiceReason).detail, "content-encoding")
      service.close()
    }).pipe(Effect.scoped))
})

describe("content codings: the SDK asks for identity", () => {
  it.live("every request, a call's and a token request's, on either client, says accept-encoding: identity", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(404, { "content-type": "text/plain" })
        response.end("no")
      })
      for (const layer of [on(service.origin, { retry: { maxAttempts: 1 } }), onUndici(service.origin)]) {
        yield* Effect.flip(getSignal.pipe(Effect.provide(layer)))
        yield* Effect.flip(token.pipe(Effect.provide(layer)))
      }
      assert.deepStrictEqual(service.requests.map((request) => request.headers["accept-encoding"]), ["identity", "identity", "identity", "identity"])
    }).pipe(Effect.scoped))

  it.live("a token endpoint's 200 that is not JSON: 'the body is not JSON' (naming a content-encoding still in place), not the schema's message", () =>
    Effect.gen(function*() {
      for (const gzip of [false, true]) {
        const service = yield* server((_, response) => {
          response.writeHead(200, { "content-type": "application/json", ...(gzip ? { "content-encoding": "gzip" } : {}) })
          response.end(gzip ? gzipSync(JSON.stringify({ access_token: "a-token", token_type: "Bearer", expires_in: 60 })) : "<html>ok</html>")
        })
        for (const layer of [on(service.origin, { retry: { maxAttempts: 1 } }), onUndici(service.origin)]) {
          const error = yield* flipReason(token.pipe(Effect.provide(layer)))
          assert.strictEqual(error._tag, "InvalidResponse")
          const description = (error as InvalidResponse).description
          assert.include(description, gzip ? "the body is not JSON (it came with content-encoding: gzip, still encoded" : "the body is not JSON")
          assert.notInclude(description, "Expected a valid JSON string")
        }
        service.close()
      }
    }).pipe(Effect.scoped))
})

describe("a 200 that is not JSON, whatever its content type", () => {
  it.live("a text/html 200 (a gateway's page) says once that the body is not JSON, naming the content type: the token endpoint's union and a plain read", () =>
    Effect.gen(function*() {
      const service = yield* server((_, response) => {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        response.end("<html>sign in to the gateway</html>")
      })
      for (const layer of [on(service.origin, { retry: { maxAttempts: 1 } }), onUndici(service.origin)]) {
        for (const error of [yield* flipReason(token.pipe(Effect.provide(layer))), yield* flipReason(getSignal.pipe(Effect.provide(layer)))]) {
          assert.strictEqual(error._tag, "InvalidResponse")
          assert.strictEqual((error as InvalidResponse).description, "the body is not JSON (content-type: \"text/html; charset=utf-8\")")
          assert.include(error.message, "refused: the body is not JSON")
          assert.notInclude(error.message, "Expected a valid JSON string")
        }
      }
    }).pipe(Effect.scoped))
})

describe("the status decides the retry of an error body cut short", () => {
  const cut = (status: number) =>
    server((_, response) => {
      response.writeHead(status, { "content-type": "application/json", "content-length": "500" })
      response.write("{\"errors\":")
      setTimeout(() => response.socket?.destroy(), 20)
    })

  it.live("a 404 whose body is cut is a NotFound at once (body unreadable noted), not retried", () =>
    Effect.gen(function*() {
      const service = yield* cut(404)
      const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, quick))))
      assert.strictEqual(error._tag, "NotFound")
      assert.strictEqual((error as ServiceReason).status, 404)
      assert.include((error as ServiceReason).detail, "could not be read")
      assert.strictEqual(service.requests.length, 1)
    }).pipe(Effect.scoped))

  it.live("a 418 whose body is cut is a MalformedBody at once, not retried", () =>
    Effect.gen(function*() {
      const service = yield* cut(418)
      const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, quick))))
      assert.strictEqual(error._tag, "MalformedBody")
      assert.include((error as MalformedBody).description, "could not be read")
      assert.strictEqual(service.requests.length, 1)
    }).pipe(Effect.scoped))

  it.live("a 503 whose body is cut is a Server with its status, retried; a cut 429 a RateLimit", () =>
    Effect.gen(function*() {
      const service = yield* cut(503)
      const error = yield* flipReason(getSignal.pipe(Effect.provide(on(service.origin, quick))))
      assert.strictEqual(error._tag, "Server")
      assert.strictEqual(error._tag === "Server" ? error.status : undefined, 503)
      assert.strictEqual(service.requests.length, 3)
      const limited = yield* cut(429)
      const rateLimit = yield* flipReason(getSignal.pipe(Effect.provide(on(limited.origin, quick))))
      assert.strictEqual(rateLimit._tag, "RateLimit")
      assert.strictEqual(limited.requests.length, 1)
    }).pipe(Effect.scoped))
})
