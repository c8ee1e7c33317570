import { Layer, ManagedRuntime } from "effect"
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
  readonly run: (delivery: Receiver.Delivery) => Promise<Receiver.Reply>
  readonly dispose: () => Promise<void>
}

/** @internal */
export const start = <E, R, LE>(options: AdapterOptions<E, R, LE>): Running<R> => {
  const receiver = Receiver.make(options)
  const layer = Layer.merge(
    options.seenEvents ?? SeenEvents.layerMemory(),
    (options.layer ?? Layer.empty) as Layer.Layer<R, LE>
  )
  const runtime = ManagedRuntime.make(layer)
  return {
    receiver,
    run: (delivery) => runtime.runPromise(receiver.receive(delivery)),
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
