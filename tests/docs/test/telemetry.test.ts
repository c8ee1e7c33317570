/**
 * What the fleet README's "Observability" section promises: with
 * `@effect/opentelemetry`'s `NodeSdk` (on the OpenTelemetry SDK packages
 * installed here), the fleet's Effect metrics and its spans reach the
 * OpenTelemetry exporters (in-memory ones here, in place of OTLP).
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { AggregationTemporality, InMemoryMetricExporter, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Effect, Layer, Schema } from "effect"
import { EventQueue, Ingestion, Worker } from "@connected-vehicle/fleet"

describe("fleet telemetry through @effect/opentelemetry", () => {
  it.live("the fleet's metrics and spans are exported", () => {
    const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
    const spans = new InMemorySpanExporter()
    const reader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 60_000 })
    const Telemetry = NodeSdk.layer(() => ({
      resource: { serviceName: "fleet-test" },
      spanProcessor: new SimpleSpanProcessor(spans),
      metricReader: reader
    }))
    const event = Schema.decodeUnknownSync(EventQueue.QueuedEvent)({ eventId: "evt_otel", eventType: "VEHICLE_DELETED" })
    return Effect.gen(function*() {
      yield* (yield* EventQueue.EventQueue).offer(event)
      yield* Worker.handleOne({ handler: () => Effect.void })
      yield* Effect.promise(() => reader.forceFlush())
      const names = new Set(metrics.getMetrics().flatMap((batch) =>
        batch.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.descriptor.name))
      ))
      for (const name of ["fleet_events_offered", "fleet_events_taken", "fleet_event_lag", "fleet_queue_depth", "fleet_events_handled"]) {
        assert.isTrue(names.has(name), `${name} in ${[...names].join(", ")}`)
      }
      const handled = spans.getFinishedSpans().find((span) => span.name === "fleet.Worker.handle")
      assert.strictEqual(handled?.attributes["fleet.event_id"], "evt_otel")
      assert.strictEqual(handled?.attributes["fleet.attempt"], 1)
      assert.isTrue(spans.getFinishedSpans().some((span) => span.name === "fleet.EventQueue.offer"))
    }).pipe(Effect.provide(Layer.merge(Ingestion.layerMemory(), Telemetry)))
  })
})
