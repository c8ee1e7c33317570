/**
 * Without `httpSpans`, the transport's own requests have no client span per
 * attempt, and only they: what else runs in an attempt (an `onResponse`
 * hook, a `transformClient`) sends its requests as it would anywhere else.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Tracer } from "effect"
import { HttpClient } from "effect/http"
import { CompatibilityApi } from "@connected-vehicle/schema/Api"
import { Simulator } from "@connected-vehicle/simulator/Simulator"
import * as RecordingTracer from "@connected-vehicle/testing/RecordingTracer"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as UndiciHttpClient from "@connected-vehicle/transport/UndiciHttpClient"
import { NodeHttpClient } from "@effect/platform-node"
import { COMPAT, fast, logged, loopback } from "./utils.ts"

const clients = [["NodeHttpClient.layerUndici", NodeHttpClient.layerUndici], ["UndiciHttpClient.layer()", UndiciHttpClient.layer()]] as const

for (const [name, httpClient] of clients) {
  describe(`tracing of the requests around a call (${name})`, () => {
    it.live("an onResponse hook's own request keeps its client span and trace context; the call's attempt has none", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator
        const http = yield* HttpClient.HttpClient
        const { spans, tracer } = RecordingTracer.make()
        const seen: Array<boolean> = []
        const audit = `${sim.url}${COMPAT}?audit=1`
        const compatibility = yield* Transport.publicClient(CompatibilityApi, "compatibility")
        yield* compatibility.list(undefined, {
          onResponse: (response) =>
            Effect.withFiber((fiber) => {
              // the transport's own request is untraced, any other is the caller's to decide
              seen.push(fiber.getRef(HttpClient.TracerDisabledWhen)(response.request))
              return Effect.ignore(Effect.flatMap(http.get(audit), (r) => r.text))
            })
        }).pipe(Effect.provideService(Tracer.Tracer, tracer))
        assert.deepStrictEqual(seen, [true])
        const call = spans.find((s) => s.name === "connected-vehicle.compatibility.list")!
        const clientSpans = spans.filter((s) => s !== call)
        // one client span: the hook's request, under the call's span
        assert.strictEqual(clientSpans.length, 1)
        assert.strictEqual(clientSpans[0]!.attributes.get("url.full"), audit)
        assert.strictEqual(clientSpans[0]!.traceId, call.traceId)
        const entries = yield* logged(COMPAT)
        const own = entries.find((e) => !e.query.includes("audit"))!
        const hooks = entries.find((e) => e.query.includes("audit"))!
        assert.strictEqual(own.headers["traceparent"], `00-${call.traceId}-${call.spanId}-01`)
        assert.strictEqual(hooks.headers["traceparent"], `00-${clientSpans[0]!.traceId}-${clientSpans[0]!.spanId}-01`)
      }).pipe(Effect.provide(loopback(fast, httpClient))))
  })
}
