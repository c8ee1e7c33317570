/**
 * A progress bar on stderr for streamed exports: pages, items (of the total
 * when known), a bar, and the rate in items per second. On a terminal it
 * redraws one line; elsewhere (pipes, CI logs) it prints a line at most every
 * 250 ms and a final one unless the last line printed has the final counts
 * already (each state is printed once). A line left open on a terminal (an interrupt with
 * Ctrl-C, a failure) is ended by `close`, so the shell prompt starts on a
 * line of its own.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Option } from "effect"

/**
 * A running progress display.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { start } from "@connected-vehicle/sample/Progress"
 *
 * const program = Effect.gen(function*() {
 *   const progress = yield* start("vehicles")
 *   yield* progress.page(50, 120)
 *   yield* progress.done
 * })
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Progress {
  /** Counts one more page of `items` items; `total` is the list's totalCount when known. */
  readonly page: (items: number, total?: number | undefined) => Effect.Effect<void>
  /** Prints the final state and ends the line. */
  readonly done: Effect.Effect<void>
  /** Ends the line if one is open (after an interrupt or a failure); does nothing after `done`. */
  readonly close: Effect.Effect<void>
}

/**
 * Where the progress goes: stderr by default.
 *
 * @example
 * ```ts
 * import { start } from "@connected-vehicle/sample/Progress"
 * import type { Output } from "@connected-vehicle/sample/Progress"
 *
 * const output: Output = { isTTY: false, write: (text) => process.stderr.write(text) }
 * const progress = start("connections", output)
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Output {
  readonly isTTY: boolean
  readonly write: (text: string) => void
}

const width = 24

/**
 * Formats one progress line.
 *
 * @example
 * ```ts
 * import { line } from "@connected-vehicle/sample/Progress"
 *
 * line({ label: "connections", pages: 2, items: 200, total: 1000, elapsed: "500 millis" })
 * // "connections [#####...] pages 2  items 200/1000  400 items/s"
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const line = (state: {
  readonly label: string
  readonly pages: number
  readonly items: number
  readonly total: number | undefined
  /** Since the start (a `Duration` input; the rate is 0 when it is not positive and finite). */
  readonly elapsed: Duration.Input
}): string => {
  const elapsed = Option.getOrElse(Duration.fromInput(state.elapsed), () => Duration.zero)
  const millis = Duration.isFinite(elapsed) ? Duration.toMillis(elapsed) : 0
  const rate = millis > 0 ? Math.round((state.items * 1000) / millis) : 0
  const fraction = state.total === undefined || state.total === 0 ? undefined : Math.min(1, state.items / state.total)
  const bar = fraction === undefined
    ? ""
    : `[${"#".repeat(Math.round(fraction * width)).padEnd(width, ".")}] `
  const of = state.total === undefined ? "" : `/${state.total}`
  return `${state.label} ${bar}pages ${state.pages}  items ${state.items}${of}  ${rate} items/s`
}

/**
 * Starts a progress display on stderr (or `output`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Progress from "@connected-vehicle/sample/Progress"
 *
 * const program = Effect.gen(function*() {
 *   const progress = yield* Progress.start("connections")
 *   yield* progress.page(100, 1000)
 *   yield* progress.done
 * })
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const start = (label: string, output?: Output): Effect.Effect<Progress> =>
  Effect.gen(function*() {
    const startedAt = yield* Clock.currentTimeMillis
    const out: Output = output ?? { isTTY: process.stderr.isTTY === true, write: (text) => void process.stderr.write(text) }
    const tty = out.isTTY
    let pages = 0
    let items = 0
    let total: number | undefined
    let lastDraw = 0
    // the counts of the last line printed
    let drawn = ""
    // a terminal line drawn without its newline
    let open = false
    const draw = (now: number, final: boolean) =>
      Effect.sync(() => {
        const text = line({ label, pages, items, total, elapsed: now - startedAt })
        const counts = `${pages} ${items} ${total}`
        if (tty) out.write(`\r\x1b[2K${text}${final ? "\n" : ""}`)
        else if (counts !== drawn) out.write(`${text}\n`)
        open = tty && !final
        lastDraw = now
        drawn = counts
      })
    return {
      page: (count, pageTotal) =>
        Effect.gen(function*() {
          pages++
          items += count
          if (pageTotal !== undefined) total = pageTotal
          const now = yield* Clock.currentTimeMillis
          if (now - lastDraw >= (tty ? 50 : 250)) yield* draw(now, false)
        }),
      done: Effect.flatMap(Clock.currentTimeMillis, (now) => draw(now, true)),
      close: Effect.sync(() => {
        if (open) out.write("\n")
        open = false
      })
    }
  })
