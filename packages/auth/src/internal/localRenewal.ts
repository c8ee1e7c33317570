/**
 * The `renewal`s of stores that take no lease another process waits for
 * (the memory store's): a `Session` may stop such a renewal in its grant's
 * wait once no caller awaits it (see `flight.ts`), the rest of a
 * `Retry-After` held in this process. A store that coordinates renewals
 * across processes keeps its renewal, and its lease, through the wait.
 *
 * @internal
 */

const local = new WeakSet<object>()

/**
 * `renewal`, marked as one that takes no lease across processes.
 *
 * @internal
 */
export const markLocal = <F extends object>(renewal: F): F => {
  local.add(renewal)
  return renewal
}

/**
 * Whether a store's `renewal` takes no lease across processes: none, or one
 * marked by {@link markLocal}.
 *
 * @internal
 */
export const isLocal = (renewal: object | undefined): boolean => renewal === undefined || local.has(renewal)
