import { Cause, Effect, Layer, ManagedRuntime } from "effect"
import * as Receiver from "../Receiver.ts"
import { BodyTooLarge, UnreadableBody } from "../ReceiverError.ts"
import * as SeenEvents from "../SeenEvents.ts"

/** @internal */
export type AdapterOptions<E, R, LE> =
  & Receiver.Options<E, R>
  & {
    /** The seen-events store (default: in memory, `SeenEvents.layerMemory()`). */
    readonly seenEvents?: Layer.Layer<SeenEvents.SeenEvents, LE> | undefined
  }
  & ([R] extends [never] ? { readonly layer?: Layer.Layer<never, LE> | undefined }
    : { readonly layer: Layer.Layer<R, LE> })

/** @internal */
export interface Running<R> {
  readonly receiver: Receiver.Receiver<R>
  /** The reply to a delivery; never rejects (a defect is logged and answered 500). */
  readonly run: (delivery: Receiver.Delivery) => Promise<Receiver.Reply>
  /** Logs an unexpected failure of an adapter and returns the 500 answering it. */
  readonly defect: (error: unknown) => Receiver.Reply
  readonly dispose: () => Promise<void>
}

/** @internal */
export const start = <E, R, LE>(options: AdapterOptions<E, R, LE>): Running<R> => {
  const receiver = Receiver.make(options)
  const layer = Layer.merge(
    // the handlers' scope closes first (on dispose), releasing their marks into the store still open
    Receiver.layerHandlerScope.pipe(Layer.provideMerge(options.seenEvents ?? SeenEvents.layerMemory())),
    (options.layer ?? Layer.empty) as Layer.Layer<R, LE>
  )
  const runtime = ManagedRuntime.make(layer)
  const defect = (error: unknown): Receiver.Reply => {
    const log = Effect.logError("webhook receiver failed unexpectedly", Cause.isCause(error) ? error : Cause.die(error))
    // through the application's logger, or the default one when its layers cannot be built
    runtime.runPromise(log).catch(() => Effect.runFork(log))
    return internalError
  }
  return {
    receiver,
    run: (delivery) =>
      runtime.runPromiseExit(receiver.receive(delivery)).then(
        (exit) => exit._tag === "Success" ? exit.value : defect(exit.cause),
        defect
      ),
    defect,
    dispose: () => runtime.dispose()
  }
}

/** @internal */
export const tooLarge = (limit: number) => new BodyTooLarge({ limit })

/** @internal */
export const unreadable = (reason: string, alreadyParsed = false) => new UnreadableBody({ reason, alreadyParsed })

/** @internal */
export const internalError: Receiver.Reply = {
  status: 500,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ error: { _tag: "ReceiverDefect", message: "The receiver failed unexpectedly" } }),
  outcome: "rejected"
}
