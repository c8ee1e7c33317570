/**
 * A `Tracer` for tests that keeps every span it starts, in order: what a
 * call's span, its attributes and its children were.
 *
 * @since 0.2.0
 */
import { Tracer } from "effect"

/**
 * A tracer and the spans it started so far (the array grows as spans start).
 *
 * @example
 * ```ts
 * import { Effect, Tracer } from "effect"
 * import * as RecordingTracer from "@connected-vehicle/testing/RecordingTracer"
 *
 * const { spans, tracer } = RecordingTracer.make()
 * const program = Effect.withSpan(Effect.void, "work").pipe(Effect.provideService(Tracer.Tracer, tracer))
 * const names = Effect.map(program, () => spans.map((span) => span.name)) // ["work"]
 * ```
 * @since 0.2.0
 * @category models
 */
export interface RecordingTracer {
  readonly tracer: Tracer.Tracer
  readonly spans: ReadonlyArray<Tracer.NativeSpan>
}

/**
 * A new recording tracer: Effect's `NativeSpan`s (timed by the fiber's
 * clock, ended as usual), each kept as it starts.
 *
 * @example
 * ```ts
 * import { Effect, Tracer } from "effect"
 * import * as RecordingTracer from "@connected-vehicle/testing/RecordingTracer"
 *
 * const traced = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
 *   const recording = RecordingTracer.make()
 *   return Effect.map(Effect.provideService(effect, Tracer.Tracer, recording.tracer), () => recording.spans)
 * }
 * ```
 * @since 0.2.0
 * @category constructors
 */
export const make = (): RecordingTracer => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { tracer, spans }
}
