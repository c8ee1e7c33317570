/**
 * The `pathPattern` globs of `POST /_simulator/faults`: parsed and checked
 * once, matched against a request path (in `routePath` form) segment by
 * segment with no backtracking.
 *
 * @internal
 */
import { quoted } from "./oauthText.ts"

/** The longest `pathPattern` of `POST /_simulator/faults`, in characters. */
export const PATH_GLOB_LIMIT = 256

const STAR = -1
const SLASH = 47

/**
 * A `pathPattern`: a glob over the whole path, `*` any characters but `/`,
 * `**` any characters, the other characters literal. Kept as the pieces
 * between its `**`s (`chunks`: char codes, a `*` as `STAR`), so that a match
 * is the first piece at the start, the last at the end, the others in order
 * in between, each found as early as it can be.
 */
export interface PathGlob {
  readonly _tag: "PathGlob"
  /** The pattern, lower-case: two rules with the same one match the same paths. */
  readonly source: string
  readonly chunks: ReadonlyArray<Chunk>
}

interface Chunk {
  readonly tokens: ReadonlyArray<number>
  /** The literal characters before its first `*`: where a match of the piece can start. */
  readonly lead: string
  /** Its parts between `/`s, each as the literals between its `*`s. */
  readonly segments: ReadonlyArray<ReadonlyArray<string>>
}

const usage =
  `pathPattern is a glob over the whole path, starting with "/" ("*" any characters but "/", "**" any characters, e.g. "/v3/vehicles/*/signals/**")`

/**
 * `text` as `decodeURI` reads it (as a request path is normalised): a
 * reserved character's encoding (`%2f`, `%3f`...) stays, and so does text
 * that does not decode.
 */
const decodedOf = (text: string): string => {
  try {
    return decodeURI(text)
  } catch {
    return text
  }
}

/** Why a (lower-case) pattern is refused, or undefined. */
const refusal = (pattern: string): string | undefined => {
  if (pattern.length > PATH_GLOB_LIMIT) return `pathPattern is at most ${PATH_GLOB_LIMIT} characters, got ${pattern.length}`
  const shown = quoted(pattern)
  if (!pattern.startsWith("/") || /[\\^$()[\]{}+?|]|\/\.\*/.test(pattern)) {
    return `${usage}, not a regular expression: ${shown}`
  }
  if (pattern.includes("//") || (pattern.length > 1 && pattern.endsWith("/"))) {
    return `${usage}; it can never match ${shown}: a path is matched without repeated or trailing "/"`
  }
  if (decodedOf(pattern) !== pattern) {
    return `${usage}; it can never match ${shown}: a path is matched percent-decoded (write the character itself)`
  }
  return undefined
}

/**
 * Why a fault rule's literal `path` (matched exactly, or as a prefix at a
 * `/` boundary, against the normalised lower-case path) is refused, or
 * undefined: one no request path can match (not starting with `/`, a query,
 * a fragment, `;` parameters (the path is cut there) or a scheme, a repeated or trailing `/`, a percent-encoding the
 * path's decoding would decode), or longer than {@link PATH_GLOB_LIMIT}.
 */
export const pathRefusal = (path: string): string | undefined => {
  const what = `path is matched against the request's path (percent-decoded, without query, repeated or trailing "/"), exactly or as a prefix at a "/": e.g. "/v3/connections"`
  if (path.length > PATH_GLOB_LIMIT) return `path is at most ${PATH_GLOB_LIMIT} characters, got ${path.length}`
  const shown = quoted(path)
  if (!path.startsWith("/") || path.includes("?") || path.includes("#") || path.includes(";")) return `${what}; it can never match ${shown}`
  if (path.includes("//") || (path.length > 1 && path.endsWith("/"))) return `${what}; it can never match ${shown}`
  if (decodedOf(path) !== path) return `${what}; it can never match ${shown}: write the character itself, not its percent-encoding`
  return undefined
}

const chunkOf = (tokens: ReadonlyArray<number>): Chunk => {
  const segments: Array<Array<string>> = [[""]]
  for (const token of tokens) {
    const pieces = segments[segments.length - 1]!
    if (token === SLASH) segments.push([""])
    else if (token === STAR) pieces.push("")
    else pieces[pieces.length - 1] += String.fromCharCode(token)
  }
  const star = tokens.indexOf(STAR)
  return { tokens, lead: String.fromCharCode(...(star === -1 ? tokens : tokens.slice(0, star))), segments }
}

/**
 * The glob of a `pathPattern` (compared with the lower-case path, so
 * lower-cased), or why it is refused: longer than {@link PATH_GLOB_LIMIT},
 * not starting with `/`, with a character of a regular expression (the syntax
 * it had before) or `/.*`, or one no path can match (repeated or trailing `/`,
 * a percent-encoding).
 */
export const pathGlob = (pattern: string): PathGlob | string => {
  const source = pattern.toLowerCase()
  const refused = refusal(source)
  if (refused !== undefined) return refused
  const chunks: Array<Chunk> = []
  let tokens: Array<number> = []
  for (let i = 0; i < source.length; i++) {
    if (source[i] !== "*") tokens.push(source.charCodeAt(i))
    else if (source[i + 1] !== "*") tokens.push(STAR)
    else {
      chunks.push(chunkOf(tokens))
      tokens = []
      while (source[i + 1] === "*") i++
    }
  }
  chunks.push(chunkOf(tokens))
  return { _tag: "PathGlob", source, chunks }
}

// The live positions of a piece (0 .. tokens.length, the last one a match),
// as a list without repeats (`mark` holds the step that added each): shared,
// as one match runs at a time, and no piece is longer than the limit.
let live = new Int32Array(PATH_GLOB_LIMIT + 2)
let following = new Int32Array(PATH_GLOB_LIMIT + 2)
const mark = new Float64Array(PATH_GLOB_LIMIT + 2)
let stamp = 0
let count = 0
let nextCount = 0

/** Adds a position to the next live list, and those after the `*`s it may skip. */
const add = (tokens: ReadonlyArray<number>, position: number): void => {
  for (let i = position; i <= tokens.length && mark[i] !== stamp; i++) {
    mark[i] = stamp
    following[nextCount++] = i
    if (tokens[i] !== STAR) return
  }
}

/**
 * Moves the live positions over one character (and a match starting at it,
 * when `fresh`: the piece starts with a literal); whether a match is among them.
 */
const step = (tokens: ReadonlyArray<number>, c: number, fresh = false): boolean => {
  stamp++
  nextCount = 0
  for (let j = 0; j < count; j++) {
    const position = live[j]!
    const token = tokens[position]
    if (token === STAR) {
      if (c !== SLASH) add(tokens, position)
    } else if (token === c) add(tokens, position + 1)
  }
  if (fresh && tokens[0] === c) add(tokens, 1)
  ;[live, following] = [following, live]
  count = nextCount
  return mark[tokens.length] === stamp
}

// A part of a piece between "/"s (`pieces`: its literals between "*"s) matched
// in one segment of the path, `text`: the first literal at the start (or the
// last at the end), the others each at its earliest (latest): a "*" cannot
// cross a "/", so that is all the choice there is.

/** Whether the part matches the whole segment. */
const wholeSegment = (pieces: ReadonlyArray<string>, text: string): boolean => {
  const last = pieces.length - 1
  if (last === 0) return text === pieces[0]
  const end = text.length - pieces[last]!.length
  if (end < pieces[0]!.length || !text.endsWith(pieces[last]!)) return false
  return fromStart(pieces, text.slice(0, end), last) !== -1
}

/** Where the shortest match of the first `count` literals at the start of `text` ends, or -1. */
const fromStart = (pieces: ReadonlyArray<string>, text: string, count = pieces.length): number => {
  if (!text.startsWith(pieces[0]!)) return -1
  let at = pieces[0]!.length
  for (let i = 1; i < count && at !== -1; i++) {
    const found = text.indexOf(pieces[i]!, at)
    at = found === -1 ? -1 : found + pieces[i]!.length
  }
  return at
}

/** Where the shortest match of the literals at the end of `text` starts, or -1. */
const fromEnd = (pieces: ReadonlyArray<string>, text: string): number => {
  const last = pieces.length - 1
  if (!text.endsWith(pieces[last]!)) return -1
  let at = text.length - pieces[last]!.length
  for (let i = last - 1; i >= 0 && at !== -1; i--) {
    at = pieces[i]!.length > at ? -1 : text.lastIndexOf(pieces[i]!, at - pieces[i]!.length)
  }
  return at
}

/** Whether a piece without `**` matches the whole path: part by part, segment by segment. */
const whole = (chunk: Chunk, path: string): boolean => {
  let slashes = 0
  for (let k = 0; k < path.length; k++) if (path.charCodeAt(k) === SLASH && ++slashes === chunk.segments.length) return false
  if (slashes !== chunk.segments.length - 1) return false
  const texts = path.split("/")
  return chunk.segments.every((pieces, i) => wholeSegment(pieces, texts[i]!))
}

/** Where the shortest match of the first piece (followed by `**`) ends, or -1. */
const head = (chunk: Chunk, path: string): number => {
  const { segments } = chunk
  let a = 0
  for (let i = 0; i < segments.length - 1; i++) {
    const b = path.indexOf("/", a)
    if (b === -1 || !wholeSegment(segments[i]!, path.slice(a, b))) return -1
    a = b + 1
  }
  const b = path.indexOf("/", a)
  const end = fromStart(segments[segments.length - 1]!, path.slice(a, b === -1 ? path.length : b))
  return end === -1 ? -1 : a + end
}

/** Where the shortest match of the last piece (after `**`) starts, at `from` or later, or -1. */
const tail = (chunk: Chunk, path: string, from: number): number => {
  const { segments } = chunk
  let b = path.length
  for (let i = segments.length - 1; i > 0; i--) {
    const a = path.lastIndexOf("/", b - 1) + 1
    if (a <= from || !wholeSegment(segments[i]!, path.slice(a, b))) return -1
    b = a - 1
  }
  const a = Math.max(from, path.lastIndexOf("/", b - 1) + 1)
  if (a > b) return -1
  const first = fromEnd(segments[0]!, path.slice(a, b))
  return first === -1 ? -1 : a + first
}

/**
 * Where the earliest match of a middle piece ends, starting at or after
 * `from` and ending by `to`, or -1: all starts at once, skipping to the next
 * place its `lead` occurs whenever no start is live.
 */
const earliest = (chunk: Chunk, path: string, from: number, to: number): number => {
  const { lead, tokens } = chunk
  count = 0
  for (let k = from; k < to; k++) {
    if (count === 0) {
      k = path.indexOf(lead, k)
      if (k === -1 || k + lead.length > to) return -1
    }
    // a piece in the middle starts with a literal: a "**" takes all the "*" next to it
    if (step(tokens, path.charCodeAt(k), true)) return k + 1
  }
  return -1
}

/**
 * Whether `glob` matches the whole `path`, with no backtracking: a glob
 * without `**` segment by segment; else the first piece from the start and
 * the last from the end, segment by segment (stopping at the first segment
 * that does not match), and the ones in between each at its earliest, found
 * with `indexOf` and followed through the positions still live. Linear in
 * the path's length, times at most the length of a piece between `**`s
 * that holds a `*` (its live positions).
 */
export const globMatches = (glob: PathGlob, path: string): boolean => {
  const { chunks } = glob
  if (chunks.length === 1) return whole(chunks[0]!, path)
  let at = head(chunks[0]!, path)
  const end = at === -1 ? -1 : tail(chunks[chunks.length - 1]!, path, at)
  if (end === -1) return false
  for (let i = 1; i < chunks.length - 1 && at !== -1; i++) at = earliest(chunks[i]!, path, at, end)
  return at !== -1
}
