/**
 * The one form every spelling of a secret comes to ({@link normalize}), and
 * the same form traced back to the text it was read from
 * ({@link normalizeTraced}): where in the text each of its characters came
 * from, so that a secret found in the normal form is cut from the text.
 *
 * Both are the same forward scans (one for entities, one for percent-encoding,
 * one for JSON escapes in each round, one for `\/` and `+`), the traced one also writing where
 * each character came from: time linear in the text, memory the size of the
 * text, whatever it holds (a text of millions of escapes is read as fast as
 * one of none, and builds nothing for each of them).
 *
 * @internal
 */

/**
 * A normal form traced back to its text: `text` is {@link normalize} of the
 * text; its character `i` was read from the text's characters `from[i]` to
 * `to[i]` (exclusive), a whole escape or entity for a character read from
 * one.
 *
 * @internal
 */
export interface Traced {
  readonly text: string
  readonly from: ArrayLike<number>
  readonly to: ArrayLike<number>
}

/** A {@link Traced} as the scans build it. */
interface Trace extends Traced {
  readonly from: Int32Array
  readonly to: Int32Array
}

/** How many UTF-16 units a scan gathers before making a string of them. */
const CHUNK = 4096

// `ignoreBOM`: a U+FEFF at the start of a chunk is text, not a mark to drop (the tracing would shift)
const utf16 = new TextDecoder("utf-16le", { ignoreBOM: true })

/** Whether the machine's `Uint16Array` is little-endian, as the decoder reads it. */
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** A run of unchanged text this long or longer is copied as a slice, not unit by unit. */
const SLICE = 32

/**
 * The output of one scan over `text`: slices of it kept as they are, and
 * characters read from parts of it; with `trace` (where each unit of `text`
 * came from), where each unit of the output came from. Never longer than
 * `text` (nothing a scan reads is longer than what it was read from).
 */
class Output {
  private readonly parts: Array<string> = []
  private readonly units = new Uint16Array(CHUNK)
  private count = 0
  /** Whether the units gathered hold a surrogate (which the decoder would not keep alone). */
  private surrogate = false
  private length = 0
  private readonly text: string
  private readonly trace: Trace | undefined
  private readonly from: Int32Array | undefined
  private readonly to: Int32Array | undefined

  constructor(text: string, trace: Trace | undefined) {
    this.text = text
    this.trace = trace
    this.from = trace === undefined ? undefined : new Int32Array(text.length)
    this.to = trace === undefined ? undefined : new Int32Array(text.length)
  }

  /** The text's characters `[start, end)`, as they are. */
  keep(start: number, end: number): void {
    if (end <= start) return
    if (this.trace !== undefined) {
      this.from!.set(this.trace.from.subarray(start, end), this.length)
      this.to!.set(this.trace.to.subarray(start, end), this.length)
    }
    if (end - start >= SLICE) {
      this.flush()
      this.parts.push(this.text.slice(start, end))
      this.length += end - start
    } else {
      for (let i = start; i < end; i++) this.push(this.text.charCodeAt(i))
    }
  }

  /** A character (a code point) read from the text's characters `[start, end)`. */
  read(code: number, start: number, end: number): void {
    if (code > 0xffff) {
      this.unit(0xd800 + ((code - 0x10000) >> 10), start, end)
      this.unit(0xdc00 + ((code - 0x10000) & 0x3ff), start, end)
    } else this.unit(code, start, end)
  }

  private unit(code: number, start: number, end: number): void {
    this.push(code)
    if (this.trace !== undefined) {
      this.from![this.length - 1] = this.trace.from[start]!
      this.to![this.length - 1] = this.trace.to[end - 1]!
    }
  }

  private push(code: number): void {
    this.units[this.count++] = code
    if ((code & 0xf800) === 0xd800) this.surrogate = true
    this.length++
    if (this.count === CHUNK) this.flush()
  }

  private flush(): void {
    if (this.count === 0) return
    const units = this.units.subarray(0, this.count)
    // the decoder reads the units as they are, but would write U+FFFD for a lone surrogate (a pair may be cut in two)
    this.parts.push(this.surrogate || !littleEndian ? String.fromCharCode.apply(null, units as unknown as Array<number>) : utf16.decode(units))
    this.count = 0
    this.surrogate = false
  }

  /** The output, and where each of its units came from when traced. */
  done(): Trace | string {
    this.flush()
    const text = this.parts.length === 1 ? this.parts[0]! : this.parts.join("")
    return this.trace === undefined ? text : { text, from: this.from!.subarray(0, this.length), to: this.to!.subarray(0, this.length) }
  }
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
const hexValue = (c: number): number => c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x61 + 10

/**
 * The named entity of a character HTML escapes at `at` (`&lt;`, `&gt;`,
 * `&quot;`, `&apos;`, `&amp;`): its character times 16 plus its length,
 * else -1 (a number, not a pair: nothing is built for each entity).
 */
const namedAt = (text: string, at: number): number => {
  const entity = (written: string, code: number) => text.startsWith(written, at) ? code * 16 + written.length : -1
  switch (text.charCodeAt(at + 1)) {
    case 0x6c: return entity("&lt;", 0x3c)
    case 0x67: return entity("&gt;", 0x3e)
    case 0x71: return entity("&quot;", 0x22)
    case 0x61: return text.charCodeAt(at + 2) === 0x6d ? entity("&amp;", 0x26) : entity("&apos;", 0x27)
    default: return -1
  }
}

/**
 * The numeric entity whose `&` is just before `at` (`#` and 1 to 7 decimal
 * digits, or `#x` and 1 to 6 hex digits, then `;`) and of a code point
 * (`0x10ffff` at most): the code point times 16 plus the entity's length
 * from `at` (`;` included), else -1.
 */
const numericAt = (text: string, at: number): number => {
  if (text.charCodeAt(at) !== 0x23) return -1
  const hex = (text.charCodeAt(at + 1) | 0x20) === 0x78
  const first = hex ? at + 2 : at + 1
  const most = hex ? 6 : 7
  let code = 0
  let i = first
  for (; i - first <= most; i++) {
    const c = text.charCodeAt(i)
    if (hex ? !isHex(c) : !isDigit(c)) break
    code = hex ? code * 16 + hexValue(c) : code * 10 + c - 0x30
  }
  if (i === first || i - first > most || text.charCodeAt(i) !== 0x3b || code > 0x10ffff) return -1
  return code * 16 + (i + 1 - at)
}

/**
 * One round's entities read, left to right: the named ones of the
 * characters HTML escapes, then the numeric ones, as if read in two passes
 * (an `&amp;` read as the `&` of a numeric entity after it: `&amp;#65;` is
 * `A`; `&amp;lt;` is `&lt;`).
 */
const entities = (text: string, trace: Trace | undefined): Trace | string => {
  let at = text.indexOf("&")
  if (at === -1) return trace ?? text
  const out = new Output(text, trace)
  let kept = 0
  for (; at !== -1; at = text.indexOf("&", at)) {
    const entity = namedAt(text, at)
    // the `&` of a numeric entity: this one, or the one `&amp;` is read as
    const hash = entity === -1 ? at + 1 : entity >> 4 === 0x26 ? at + 5 : -1
    const numeric = hash === -1 ? -1 : numericAt(text, hash)
    const read = numeric !== -1 ? numeric : entity
    if (read === -1) {
      at++
      continue
    }
    const end = numeric !== -1 ? hash + (numeric & 15) : at + (entity & 15)
    out.keep(kept, at)
    out.read(read >> 4, at, end)
    at = kept = end
  }
  out.keep(kept, text.length)
  return out.done()
}

/** Whether `at` starts a percent escape (`%` and two hex digits). */
const isEscape = (text: string, at: number): boolean =>
  text.charCodeAt(at) === 0x25 && isHex(text.charCodeAt(at + 1)) && isHex(text.charCodeAt(at + 2))

/** The byte of the escape at `at`. */
const byteAt = (text: string, at: number): number => hexValue(text.charCodeAt(at + 1)) * 16 + hexValue(text.charCodeAt(at + 2))

/**
 * The UTF-8 character whose escapes start at `at` (before `end`, the run's
 * end): its code point times 4 plus its bytes less one, else -1 (a byte that
 * cannot start one, a missing or wrong continuation, an overlong form, a
 * surrogate, past U+10FFFF: what `decodeURIComponent` refuses).
 */
const utf8At = (text: string, at: number, end: number): number => {
  const lead = byteAt(text, at)
  if (lead < 0x80) return lead * 4
  const length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0
  if (length === 0 || at + 3 * length > end) return -1
  // the second byte's range rules out overlong forms, surrogates and code points past U+10FFFF
  const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80
  const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf
  let code = lead & (0xff >> (length + 1))
  for (let k = 1; k < length; k++) {
    const byte = byteAt(text, at + 3 * k)
    if (byte < (k === 1 ? low : 0x80) || byte > (k === 1 ? high : 0xbf)) return -1
    code = (code << 6) | (byte & 0x3f)
  }
  return code * 4 + length - 1
}

/** Whether the run of escapes `[start, end)` is UTF-8 throughout. */
const isUtf8 = (text: string, start: number, end: number): boolean => {
  for (let at = start; at < end;) {
    const char = utf8At(text, at, end)
    if (char === -1) return false
    at += 3 * ((char & 3) + 1)
  }
  return true
}

/**
 * One round of percent-decoding, left to right, a run of escapes at a time:
 * a run that is UTF-8 read whole (each character from its own bytes'
 * escapes), in one that is not the ASCII bytes only.
 */
const percent = (text: string, trace: Trace | undefined): Trace | string => {
  let at = text.indexOf("%")
  if (at === -1) return trace ?? text
  const out = new Output(text, trace)
  let kept = 0
  for (; at !== -1; at = text.indexOf("%", at)) {
    if (!isEscape(text, at)) {
      at++
      continue
    }
    let end = at
    while (isEscape(text, end)) end += 3
    out.keep(kept, at)
    if (isUtf8(text, at, end)) {
      while (at < end) {
        const char = utf8At(text, at, end)
        const after = at + 3 * ((char & 3) + 1)
        out.read(char >> 2, at, after)
        at = after
      }
    } else {
      for (; at < end; at += 3) {
        const byte = byteAt(text, at)
        if (byte < 0x80) out.read(byte, at, at + 3)
        else out.keep(at, at + 3)
      }
    }
    kept = at = end
  }
  out.keep(kept, text.length)
  return out.done()
}

/**
 * The JSON escape at `at` (a backslash there): `\\` (a backslash) or `\u`
 * and four hex digits of either case (a UTF-16 unit, a lone surrogate
 * included): its unit times 8 plus its length, else -1.
 */
const jsonEscapeAt = (text: string, at: number): number => {
  const next = text.charCodeAt(at + 1)
  if (next === 0x5c) return 0x5c * 8 + 2
  if (next !== 0x75) return -1
  let code = 0
  for (let i = at + 2; i < at + 6; i++) {
    const c = text.charCodeAt(i)
    if (!isHex(c)) return -1
    code = code * 16 + hexValue(c)
  }
  return code * 8 + 6
}

/**
 * One round of JSON string escapes read, left to right: `\uXXXX` and `\\`
 * (so that `\\u0073`, escaped twice, is `\u0073` after one round and `s`
 * after two). `\/` is read once, after the rounds; `\"` and the escapes of
 * control characters are not read (a secret with a `"` is also searched
 * JSON-escaped); nor `\xXX`, which no JSON encoder writes.
 */
const jsonEscapes = (text: string, trace: Trace | undefined): Trace | string => {
  let at = text.indexOf("\\")
  if (at === -1) return trace ?? text
  const out = new Output(text, trace)
  let kept = 0
  for (; at !== -1; at = text.indexOf("\\", at)) {
    const escape = jsonEscapeAt(text, at)
    if (escape === -1) {
      at++
      continue
    }
    out.keep(kept, at)
    out.read(escape >> 3, at, at + (escape & 7))
    at = kept = at + (escape & 7)
  }
  out.keep(kept, text.length)
  return out.done()
}

/** `\/` read as `/`, and `+` as a space (form encoding). */
const slashesAndPluses = (text: string, trace: Trace | undefined): Trace | string => {
  let plus = text.indexOf("+")
  let slash = text.indexOf("\\/")
  if (plus === -1 && slash === -1) return trace ?? text
  const out = new Output(text, trace)
  let kept = 0
  while (plus !== -1 || slash !== -1) {
    const isPlus = slash === -1 || (plus !== -1 && plus < slash)
    const at = isPlus ? plus : slash
    out.keep(kept, at)
    out.read(isPlus ? 0x20 : 0x2f, at, isPlus ? at + 1 : at + 2)
    kept = isPlus ? at + 1 : at + 2
    if (isPlus) plus = text.indexOf("+", kept)
    else slash = text.indexOf("\\/", kept)
  }
  out.keep(kept, text.length)
  return out.done()
}

const textOf = (out: Trace | string): string => typeof out === "string" ? out : out.text

/** The rounds of {@link normalize}, traced when `trace` is given. */
const normalizeWith = (text: string, trace: Trace | undefined): Trace | string => {
  const traceOf = (out: Trace | string) => typeof out === "string" ? undefined : out
  // entities, percent-encoding and JSON escapes in any order (a text HTML-escaped, then percent-encoded, or escaped twice), three rounds at most
  let out: Trace | string = trace ?? text
  for (let round = 0; round < 3; round++) {
    const before = textOf(out)
    const once = entities(before, traceOf(out))
    const decoded = percent(textOf(once), traceOf(once))
    const next = jsonEscapes(textOf(decoded), traceOf(decoded))
    if (textOf(next) === before) break
    out = next
  }
  return slashesAndPluses(textOf(out), traceOf(out))
}

/**
 * A text in the one form every spelling of a secret comes to: HTML entities
 * (named and numeric) and percent-encoding (hex digits of either case, every
 * character or only some: whatever subset an encoder escapes) and JSON
 * escapes (`\uXXXX`, `\\`: a header or a string of a body escaped once more
 * than its JSON) read, in turn, until nothing changes (three rounds at most),
 * `\/` as `/`, `+` as a space (form encoding). A body's own JSON escapes are
 * read by parsing it first. Linear in the text's length, in time and memory.
 *
 * @internal
 */
export const normalize = (text: string): string => normalizeWith(text, undefined) as string

/**
 * {@link normalize} of `text`, traced back to it (see {@link Traced}): the
 * same rounds, each character of the normal form read from a whole escape or
 * entity of the text, or from one of its characters.
 *
 * @internal
 */
export const normalizeTraced = (text: string): Traced => {
  const from = new Int32Array(text.length)
  const to = new Int32Array(text.length)
  for (let i = 0; i < text.length; i++) {
    from[i] = i
    to[i] = i + 1
  }
  return normalizeWith(text, { text, from, to }) as Trace
}
