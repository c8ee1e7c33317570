/**
 * A compiled node of the body decoder (`decoder.ts`) and its markers.
 *
 * @internal
 */

/** What a fast decoder returns for a value it does not accept. */
export const invalid: unique symbol = Symbol("@connected-vehicle/transport/decoder/invalid")

/** What {@link Compiled.missing} returns for an absent key that stays absent. */
export const absent: unique symbol = Symbol("@connected-vehicle/transport/decoder/absent")

export type Fast = (input: unknown) => unknown

export interface Compiled {
  readonly fast: Fast
  /**
   * Compiled here, not handed to Effect's decoder: an absent key stays absent
   * through it, or `missing` says what it gives, and its output does not
   * depend on which union member Effect would try first.
   */
  readonly native: boolean
  /**
   * What an absent key decodes to (a value, `absent`, or `invalid` when
   * Effect's decoder must say), for a node whose encoding gives a value of
   * nothing (a decoding default: an optional getter); `undefined`: the key
   * stays absent.
   */
  readonly missing?: (() => unknown) | undefined
  /** The runtime types it can accept (`undefined`: any). */
  readonly accepts: ReadonlySet<string> | undefined
  /** It returns its input unchanged whenever it accepts it (no encoding, leaves and unions of them). */
  readonly identity: boolean
  /**
   * It decodes what it gave to an equal value (no encoding anywhere below:
   * leaves, `Schema.Json`, structs, arrays and unions of such nodes).
   */
  readonly stable?: boolean | undefined
}

/** The runtime type of a value, as {@link Compiled.accepts} names it. */
export const runtimeType = (u: unknown): string => u === null ? "null" : Array.isArray(u) ? "array" : typeof u

/** The check of a plain leaf as an expression of `v`, for generated code. */
export const inlined = new WeakMap<Compiled, string>()
