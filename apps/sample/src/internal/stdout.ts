/**
 * Lines written to stdout for `webhooks listen`: each done once the stream
 * took it, and the end of stdout (a reader that went away, `EPIPE`).
 *
 * @internal
 */
import { Effect } from "effect"
import { SampleError } from "../SampleError.ts"

/**
 * Lines written to stdout, each done once the stream took it (its write
 * callback), and the end of stdout: a reader that went away (`| head -n 1`:
 * `EPIPE`) or another write error. The stream's `error` events are handled
 * for the scope (and ignored after it once stdout failed), so a closed
 * stdout never throws.
 */
export const stdoutLines = Effect.gen(function*() {
  let failure: NodeJS.ErrnoException | undefined
  let end: ((error: NodeJS.ErrnoException) => void) | undefined
  const ended = new Promise<NodeJS.ErrnoException>((resolve) => {
    end = resolve
  })
  const onError = (error: NodeJS.ErrnoException) => {
    if (failure !== undefined) return
    failure = error
    end?.(error)
  }
  const ignore = () => undefined
  yield* Effect.acquireRelease(
    Effect.sync(() => process.stdout.on("error", onError)),
    () =>
      Effect.sync(() => {
        process.stdout.off("error", onError)
        // later writes (the exit's) to a closed stdout must not throw either
        if (failure !== undefined && !process.stdout.listeners("error").includes(ignore)) process.stdout.on("error", ignore)
      })
  )
  const closed = () => new SampleError({ reason: `stdout is closed (${failure?.code ?? failure?.message ?? "closed"}): the event was not printed` })
  const write = (text: string) =>
    Effect.callback<void, SampleError>((resume) => {
      if (failure !== undefined) return resume(Effect.fail(closed()))
      process.stdout.write(`${text}\n`, (error) => {
        if (error === null || error === undefined) return resume(Effect.void)
        onError(error)
        resume(Effect.fail(closed()))
      })
    })
  return { write, ended: Effect.promise(() => ended) }
})

