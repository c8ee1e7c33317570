/**
 * The Promise client's values: every `DateTime` of a decoded value as a
 * `Date`. The plain objects and arrays on the way to one are copied, the
 * others (with no `DateTime` in them) are the decoded ones, which nothing else
 * holds (a value the SDK caches, the compatibility listing, is copied by its
 * caller).
 *
 * The walk recurses while the value is shallow (every answer of the service
 * is: no key array, no frame object per node) and continues with an explicit
 * stack below {@link maxRecursion} levels, so a body nested thousands of
 * levels deep (a signal's `body` is free-form) converts instead of
 * overflowing the call stack.
 */
import { DateTime } from "effect"
import type { Plain } from "../Client.ts"

/** Levels walked by recursion before the explicit stack takes over. */
const maxRecursion = 256

/** @internal */
export const plain = <A>(value: A): Plain<A> =>
  (typeof value === "object" && value !== null ? objectToPlain(value, 0) : value) as Plain<A>

const isPlainObject = (u: object): u is Record<string, unknown> => {
  const proto = Object.getPrototypeOf(u)
  return proto === Object.prototype || proto === null
}

const objectToPlain = (u: object, depth: number): unknown => {
  if (depth >= maxRecursion) return deepToPlain(u)
  if (Array.isArray(u)) {
    let out: Array<unknown> | undefined
    for (let i = 0; i < u.length; i++) {
      const value: unknown = u[i]
      if (typeof value !== "object" || value === null) continue
      const converted = objectToPlain(value, depth + 1)
      if (converted !== value) (out ??= u.slice())[i] = converted
    }
    return out ?? u
  }
  if (isPlainObject(u)) {
    let out: Record<string, unknown> | undefined
    // `for…in` and `Object.hasOwn`: no key array per object, and an enumerable
    // key added to `Object.prototype` is not walked (it could loop forever)
    for (const key in u) {
      if (!Object.hasOwn(u, key)) continue
      const value: unknown = u[key]
      if (typeof value !== "object" || value === null) continue
      const converted = objectToPlain(value, depth + 1)
      if (converted !== value) (out ??= { ...u })[key] = converted
    }
    return out ?? u
  }
  return DateTime.isDateTime(u) ? DateTime.toDateUtc(u) : u
}

/** An array or plain object being walked: its keys holding objects, the next one, and its copy once a child changed. */
interface Frame {
  readonly source: Record<string | number, unknown>
  readonly keys: ReadonlyArray<string | number>
  next: number
  out: Record<string | number, unknown> | undefined
}

const frameOf = (u: Array<unknown> | Record<string, unknown>): Frame => {
  const keys: Array<string | number> = []
  if (Array.isArray(u)) {
    for (let i = 0; i < u.length; i++) if (typeof u[i] === "object" && u[i] !== null) keys.push(i)
  } else {
    for (const key in u) if (Object.hasOwn(u, key) && typeof u[key] === "object" && u[key] !== null) keys.push(key)
  }
  return { source: u as Frame["source"], keys, next: 0, out: undefined }
}

const copyOf = (u: Frame["source"]): Frame["source"] => (Array.isArray(u) ? u.slice() : { ...u }) as Frame["source"]

const isContainer = (u: object): u is Array<unknown> | Record<string, unknown> => Array.isArray(u) || isPlainObject(u)

/** The same conversion as {@link objectToPlain}, with an explicit stack: any depth. */
const deepToPlain = (root: object): unknown => {
  if (!isContainer(root)) return DateTime.isDateTime(root) ? DateTime.toDateUtc(root) : root
  const stack: Array<Frame> = [frameOf(root)]
  for (;;) {
    const frame = stack[stack.length - 1]!
    if (frame.next < frame.keys.length) {
      const key = frame.keys[frame.next++]!
      const child = frame.source[key] as object
      if (isContainer(child)) {
        stack.push(frameOf(child))
        continue
      }
      if (DateTime.isDateTime(child)) (frame.out ??= copyOf(frame.source))[key] = DateTime.toDateUtc(child)
      continue
    }
    stack.pop()
    const converted = frame.out ?? frame.source
    const parent = stack[stack.length - 1]
    if (parent === undefined) return converted
    if (converted !== frame.source) (parent.out ??= copyOf(parent.source))[parent.keys[parent.next - 1]!] = converted
  }
}
