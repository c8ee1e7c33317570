/**
 * The message of a transport reason, as every reason's message is shown
 * (`boundedMessage` of `@connected-vehicle/schema/Message`).
 *
 * @internal
 */
import { boundedMessage } from "@connected-vehicle/schema/Message"

// a reason's fields do not change: its message is made once, when first read (its stack's first line
// reads it too), so that a long description is not read again on every read
const made = new WeakMap<object, string>()

/**
 * `reason`'s message: `text()` escaped and at most 2,048 characters, made
 * the first time it is read.
 *
 * @internal
 */
export const reasonMessage = (reason: object, text: () => string): string => {
  let message = made.get(reason)
  if (message === undefined) {
    message = boundedMessage(text())
    made.set(reason, message)
  }
  return message
}
