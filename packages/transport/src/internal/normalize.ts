/**
 * The one form every spelling of a secret comes to ({@link normalize}), and
 * the same form traced back to the text it was read from
 * ({@link normalizeTraced}): where in the text each of its characters came
 * from, so that a secret found in the normal form is cut from the text.
 *
 * @internal
 */

/** The numeric HTML entities (decimal, hex) a server may write a character of a secret as. */
const numericEntity = /&#(?:(\d{1,7})|[xX]([0-9a-fA-F]{1,6}));/g

/** HTML entities read: the named ones of the characters HTML escapes (`&amp;` last), then the numeric ones. */
const decodeEntities = (text: string): string => {
  if (!text.includes("&")) return text
  const named = text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", "\"").replaceAll("&apos;", "'").replaceAll("&amp;", "&")
  return !named.includes("&#") ? named : named.replace(numericEntity, (whole, decimal: string | undefined, hex: string | undefined) => {
    const code = decimal !== undefined ? Number(decimal) : Number.parseInt(hex!, 16)
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole
  })
}

/** A run of percent-encoded bytes, hex digits of either case. */
const escapes = /(?:%[0-9a-fA-F]{2})+/g

/** One round of percent-decoding (in a run that is not UTF-8, the ASCII bytes only). */
const percentDecode = (text: string): string =>
  !text.includes("%") ? text : text.replace(escapes, (run) => {
    try {
      return decodeURIComponent(run)
    } catch {
      return run.replace(/%([0-7][0-9a-fA-F])/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    }
  })

/**
 * A text in the one form every spelling of a secret comes to: HTML entities
 * (named and numeric) and percent-encoding (hex digits of either case, every
 * character or only some: whatever subset an encoder escapes) read, in turn,
 * until nothing changes (three rounds at most),
 * `\/` as `/`, `+` as a space (form encoding). A JSON string's escapes
 * (`\u002f`) are read by parsing the body first.
 */
export const normalize = (text: string): string => {
  // entities and percent-encoding in any order (a text HTML-escaped, then percent-encoded, or escaped twice), three rounds at most
  let out = text
  for (let round = 0; round < 3; round++) {
    const next = percentDecode(decodeEntities(out))
    if (next === out) break
    out = next
  }
  return out.replaceAll("\\/", "/").replaceAll("+", " ")
}


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
  readonly from: ReadonlyArray<number>
  readonly to: ReadonlyArray<number>
}

/** A match read as pieces: each an output and the part of the match (`[start, end)`) it was read from. */
type Piece = readonly [string, number, number]

/** `traced` with each match of `pattern` (global) read as `read` says (`undefined`: kept as it is). */
const rewrite = (traced: Traced, pattern: RegExp, read: (match: RegExpExecArray) => ReadonlyArray<Piece> | undefined): Traced => {
  const { from, text, to } = traced
  let out = ""
  const outFrom: Array<number> = []
  const outTo: Array<number> = []
  let kept = 0
  const keep = (end: number) => {
    out += text.slice(kept, end)
    for (let i = kept; i < end; i++) {
      outFrom.push(from[i]!)
      outTo.push(to[i]!)
    }
  }
  for (const match of text.matchAll(pattern)) {
    const pieces = read(match)
    if (pieces === undefined) continue
    keep(match.index)
    for (const [piece, start, end] of pieces) {
      out += piece
      for (let i = 0; i < piece.length; i++) {
        outFrom.push(from[match.index + start]!)
        outTo.push(to[match.index + end - 1]!)
      }
    }
    kept = match.index + match[0].length
  }
  if (kept === 0) return traced
  keep(text.length)
  return { text: out, from: outFrom, to: outTo }
}

/** A literal replaced by a character read from all of it. */
const literal = (written: string, read: string) => {
  const pattern = new RegExp(written.replace(/[\\+]/g, "\\$&"), "g")
  return (traced: Traced): Traced => rewrite(traced, pattern, (match) => [[read, 0, match[0].length]])
}

const namedEntities = [literal("&lt;", "<"), literal("&gt;", ">"), literal("&quot;", "\""), literal("&apos;", "'"), literal("&amp;", "&")]

/** {@link decodeEntities}, traced. */
const decodeEntitiesTraced = (traced: Traced): Traced => {
  if (!traced.text.includes("&")) return traced
  const named = namedEntities.reduce((out, decode) => decode(out), traced)
  return rewrite(named, numericEntity, (match) => {
    const code = match[1] !== undefined ? Number(match[1]) : Number.parseInt(match[2]!, 16)
    return code <= 0x10ffff ? [[String.fromCodePoint(code), 0, match[0].length]] : undefined
  })
}

/** How many bytes a UTF-8 character whose first byte is `lead` has. */
const utf8Length = (lead: number): number => lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2

/** {@link percentDecode}, traced: each character read from its own bytes' escapes. */
const percentDecodeTraced = (traced: Traced): Traced =>
  !traced.text.includes("%") ? traced : rewrite(traced, escapes, (match) => {
    const run = match[0]
    const pieces: Array<Piece> = []
    let utf8 = true
    try {
      decodeURIComponent(run)
    } catch {
      utf8 = false
    }
    for (let at = 0; at < run.length;) {
      const lead = Number.parseInt(run.slice(at + 1, at + 3), 16)
      if (utf8) {
        // a valid run: each character's escapes (its first byte says how many) read on their own
        const end = at + 3 * utf8Length(lead)
        pieces.push([decodeURIComponent(run.slice(at, end)), at, end])
        at = end
      } else if (lead < 0x80) {
        pieces.push([String.fromCharCode(lead), at, at + 3])
        at += 3
      } else {
        for (const end = at + 3; at < end; at++) pieces.push([run[at]!, at, at + 1])
      }
    }
    return pieces
  })

const slashTraced = literal("\\/", "/")
const plusTraced = literal("+", " ")

/**
 * {@link normalize} of `text`, traced back to it (see {@link Traced}): the
 * same rounds, each character of the normal form read from a whole escape or
 * entity of the text, or from one of its characters.
 *
 * @internal
 */
export const normalizeTraced = (text: string): Traced => {
  const identity = Array.from({ length: text.length }, (_, i) => i)
  let out: Traced = { text, from: identity, to: identity.map((i) => i + 1) }
  for (let round = 0; round < 3; round++) {
    const next = percentDecodeTraced(decodeEntitiesTraced(out))
    if (next.text === out.text) break
    out = next
  }
  return plusTraced(slashTraced(out))
}
