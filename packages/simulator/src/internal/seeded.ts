/**
 * Seeded numbers: the mixing hash, the PRNG, the UUID-shaped ids that carry
 * their index, and the simulated calendar the dataset is dated on.
 *
 * @internal
 */

/** @internal */
export const hash = (...parts: ReadonlyArray<number>): number => {
  let h = 0x9e3779b9
  for (const part of parts) {
    h = Math.imul(h ^ (part | 0), 0x85ebca6b)
    h ^= h >>> 13
    h = Math.imul(h, 0xc2b2ae35)
    h ^= h >>> 16
    h = (h + 0x6b43a9b5) | 0
  }
  h ^= h >>> 15
  h = Math.imul(h, 0x2c1b3c6d)
  h ^= h >>> 12
  return h >>> 0
}

/** A number in [0, 1) from a hash. */
export const unit = (...parts: ReadonlyArray<number>): number => hash(...parts) / 4294967296

/** @internal */
export const prng = (seed: number): () => number => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const hex = (n: number, width: number) => (n >>> 0).toString(16).padStart(8, "0").slice(8 - width)

const Kind = { vehicle: 1, user: 2, connection: 3, subscription: 4, webhook: 5 } as const
type Kind = keyof typeof Kind

/** A UUID-shaped id whose last 8 hex digits carry the index (masked by the seed). */
export const makeId = (seed: number, kind: Kind, index: number): string => {
  const k = Kind[kind]
  const a = hash(seed, k, index, 1)
  const b = hash(seed, k, index, 2)
  const mask = hash(seed, k, 0x5eed)
  return `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b, 3)}-${(8 + (a & 3)).toString(16)}${hex(a >>> 8, 3)}-${
    hex(b >>> 4, 4)
  }${hex((index ^ mask) >>> 0, 8)}`
}

const idPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** The index an id stands for, or -1. */
export const parseId = (seed: number, kind: Kind, count: number, id: string): number => {
  if (id.length !== 36 || !idPattern.test(id)) return -1
  const mask = hash(seed, Kind[kind], 0x5eed)
  const index = (parseInt(id.slice(28), 16) ^ mask) >>> 0
  return index < count && makeId(seed, kind, index) === id ? index : -1
}

/** The v3 launch date: seeded records are dated before it. */
export const EPOCH = Date.UTC(2025, 7, 26)
export const DAY = 86_400_000

/** `value` rounded to `digits` decimals. */
export const round = (value: number, digits: number) => {
  const f = 10 ** digits
  return Math.round(value * f) / f
}

export const KM_PER_MILE = 1.609344
export const KPA_PER_PSI = 6.894757
