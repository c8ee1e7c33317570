import { assert, describe, it } from "@effect/vitest"
import { Context, Effect } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import type { HttpClientError, HttpClientResponse } from "effect/http"
import { attemptContext, untraced } from "../src/internal/untraced.ts"

/** A client that answers nothing: what `untraced` hands the request to (its `postprocess`). */
const base: HttpClient.HttpClient = HttpClient.makeWith<HttpClientError.HttpClientError, never, HttpClientError.HttpClientError, never>(
  (request) => Effect.map(request, () => ({}) as HttpClientResponse.HttpClientResponse),
  Effect.succeed
)

/** Sends `request` through `untraced` in a fiber with `context`. */
const send = (context: Context.Context<never>, request: HttpClientRequest.HttpClientRequest) =>
  Effect.provideContext(Effect.ignore(untraced(base, Effect.succeed(request))), context)

const predicateOf = (context: Context.Context<never>) => Context.get(context, HttpClient.TracerDisabledWhen)

describe("untraced (the transport's own requests within an attempt)", () => {
  it.effect("an attempt's predicate is true for the requests it sent, and asks the caller's for any other", () =>
    Effect.gen(function*() {
      const caller = yield* Effect.context<never>()
      const attempt = attemptContext(caller)
      const sent = HttpClientRequest.get("http://127.0.0.1:9/a")
      const again = HttpClientRequest.get("http://127.0.0.1:9/b")
      const other = HttpClientRequest.get("http://127.0.0.1:9/c")
      yield* send(attempt, sent)
      yield* send(attempt, again)
      const predicate = predicateOf(attempt)
      assert.isTrue(predicate(sent))
      assert.isTrue(predicate(again))
      assert.strictEqual(predicate(other), predicateOf(caller)(other))
      // outside an attempt: the request untraced without being noted anywhere
      yield* send(caller, other)
      assert.isFalse(predicate(other))
    }))

  it.effect("an attempt inside another one (a hook's call, a fiber it forked) notes its requests in a record of its own", () =>
    Effect.gen(function*() {
      const outer = attemptContext(yield* Effect.context<never>())
      const outerRequest = HttpClientRequest.get("http://127.0.0.1:9/outer")
      yield* send(outer, outerRequest)
      // many calls of a poller forked from the outer attempt: each attempt a record of its own,
      // none of their requests kept by the outer attempt's
      const inner = Array.from({ length: 50 }, (_, i) => HttpClientRequest.get(`http://127.0.0.1:9/inner/${i}`))
      for (const request of inner) {
        const attempt = attemptContext(outer)
        assert.notStrictEqual(predicateOf(attempt), predicateOf(outer))
        yield* send(attempt, request)
        assert.isTrue(predicateOf(attempt)(request))
        // the outer attempt's requests stay untraced inside it
        assert.isTrue(predicateOf(attempt)(outerRequest))
      }
      for (const request of inner) assert.isFalse(predicateOf(outer)(request))
    }))
})
