/**
 * A naive reference of the scrubber, written apart from it, for differential
 * tests: a text as an array of UTF-16 units, each with the part of the
 * original text it was read from, decoded by scanning (no regular
 * expressions, `TextDecoder` for UTF-8); the secrets' spellings as written
 * and their normal forms found in it, cut from the text as a mask, the rest
 * normalized.
 */

interface Unit {
  readonly c: string
  readonly lo: number
  readonly hi: number
}

const joined = (units: ReadonlyArray<Unit>): string => units.map((unit) => unit.c).join("")

/** The units of `text` read into `read`, each from the units `units[i..j)`. */
const readFrom = (read: string, units: ReadonlyArray<Unit>, i: number, j: number): Array<Unit> =>
  read.split("").map((c) => ({ c, lo: units[i]!.lo, hi: units[j - 1]!.hi }))

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9"
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c)

const replaceLiteral = (units: ReadonlyArray<Unit>, written: string, read: string): Array<Unit> => {
  const out: Array<Unit> = []
  for (let i = 0; i < units.length;) {
    if (units[i]!.c === written[0] && joined(units.slice(i, i + written.length)) === written) {
      out.push(...readFrom(read, units, i, i + written.length))
      i += written.length
    } else out.push(units[i++]!)
  }
  return out
}

const numericEntities = (units: ReadonlyArray<Unit>): Array<Unit> => {
  const out: Array<Unit> = []
  for (let i = 0; i < units.length;) {
    if (units[i]!.c === "&" && units[i + 1]?.c === "#") {
      const hex = units[i + 2]?.c === "x" || units[i + 2]?.c === "X"
      let j = hex ? i + 3 : i + 2
      const start = j
      while (j < units.length && (hex ? isHex(units[j]!.c) : isDigit(units[j]!.c))) j++
      const digits = joined(units.slice(start, j))
      if (digits.length >= 1 && digits.length <= (hex ? 6 : 7) && units[j]?.c === ";") {
        const code = hex ? Number.parseInt(digits, 16) : Number(digits)
        if (code <= 0x10ffff) {
          out.push(...readFrom(String.fromCodePoint(code), units, i, j + 1))
          i = j + 1
          continue
        }
      }
    }
    out.push(units[i++]!)
  }
  return out
}

// `ignoreBOM`: an escaped U+FEFF is text (as `decodeURIComponent` reads it), not a mark to drop
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
const encoder = new TextEncoder()

const percentEscapes = (units: ReadonlyArray<Unit>): Array<Unit> => {
  const out: Array<Unit> = []
  for (let i = 0; i < units.length;) {
    let j = i
    const bytes: Array<number> = []
    while (units[j]?.c === "%" && isHex(units[j + 1]?.c) && isHex(units[j + 2]?.c)) {
      bytes.push(Number.parseInt(units[j + 1]!.c + units[j + 2]!.c, 16))
      j += 3
    }
    if (bytes.length === 0) {
      out.push(units[i++]!)
      continue
    }
    let decoded: string | undefined
    try {
      decoded = strictUtf8.decode(new Uint8Array(bytes))
    } catch {
      decoded = undefined
    }
    if (decoded !== undefined) {
      let at = i
      for (const char of decoded) {
        const end = at + 3 * encoder.encode(char).length
        out.push(...readFrom(char, units, at, end))
        at = end
      }
    } else {
      for (let k = 0; k < bytes.length; k++) {
        const at = i + 3 * k
        if (bytes[k]! < 0x80) out.push(...readFrom(String.fromCharCode(bytes[k]!), units, at, at + 3))
        else out.push(...units.slice(at, at + 3))
      }
    }
    i = j
  }
  return out
}

/** JSON's `\\` and `\uXXXX` (one unit each, a lone surrogate included), left to right. */
const jsonEscapes = (units: ReadonlyArray<Unit>): Array<Unit> => {
  const out: Array<Unit> = []
  for (let i = 0; i < units.length;) {
    if (units[i]!.c === "\\" && units[i + 1]?.c === "\\") {
      out.push(...readFrom("\\", units, i, i + 2))
      i += 2
      continue
    }
    const digits = joined(units.slice(i + 2, i + 6))
    if (units[i]!.c === "\\" && units[i + 1]?.c === "u" && digits.length === 4 && digits.split("").every(isHex)) {
      out.push(...readFrom(String.fromCharCode(Number.parseInt(digits, 16)), units, i, i + 6))
      i += 6
      continue
    }
    out.push(units[i++]!)
  }
  return out
}

const named: ReadonlyArray<readonly [string, string]> = [["&lt;", "<"], ["&gt;", ">"], ["&quot;", "\""], ["&apos;", "'"], ["&amp;", "&"]]

/** The normal form of `text`, each unit with where in `text` it was read from. */
export const referenceNormalize = (text: string): Array<Unit> => {
  let units: Array<Unit> = text.split("").map((c, i) => ({ c, lo: i, hi: i + 1 }))
  for (let round = 0; round < 3; round++) {
    let next = units
    for (const [written, read] of named) next = replaceLiteral(next, written, read)
    next = jsonEscapes(percentEscapes(numericEntities(next)))
    if (joined(next) === joined(units)) break
    units = next
  }
  return replaceLiteral(replaceLiteral(units, "\\/", "/"), "+", " ")
}

const strong = (key: string) => key.replaceAll(" ", "").length >= 6

/** `text` with the masked positions replaced by `<redacted>`, one for each run of them. */
const cut = (text: string, mask: ReadonlyArray<boolean>): string => {
  let out = ""
  for (let i = 0; i < text.length; i++) {
    if (!mask[i]) out += text[i]
    else if (i === 0 || !mask[i - 1]) out += "<redacted>"
  }
  return out
}

/** Marks each occurrence (overlapping ones too) of each of `forms` in `text`. */
const mark = (text: string, forms: ReadonlyArray<string>, mask: Array<boolean>, at: (i: number) => readonly [number, number] = (i) => [i, i + 1]) => {
  for (const form of forms) {
    for (let i = 0; i + form.length <= text.length; i++) {
      if (!text.startsWith(form, i)) continue
      const [lo] = at(i)
      const [, hi] = at(i + form.length - 1)
      for (let k = lo; k < hi; k++) mask[k] = true
    }
  }
}

const spellingsOf = (secret: string): Array<string> => {
  const once = encodeURIComponent(secret)
  const html = secret.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\"", "&quot;").replaceAll("'", "&#39;")
  return [secret, once, once.replaceAll("%", "%25"), html, JSON.stringify(secret).slice(1, -1)]
}

const keys = new Map<string, string>()

/** A spelling's normal form (remembered: the tests ask for the same ones many times). */
const keyOf = (spelling: string): string => {
  let key = keys.get(spelling)
  if (key === undefined) keys.set(spelling, key = joined(referenceNormalize(spelling)))
  return key
}

/**
 * What the scrubber should make of `text`: itself when it holds none of the
 * secrets' spellings as written nor their normal forms in its normal form;
 * else, both cut from it (a normal form's occurrence traced back to the
 * text), the rest normalized, and any normal form left in that cut.
 */
export const referenceScrub = (secrets: ReadonlyArray<string>, text: string): string => {
  const spellings = secrets.flatMap(spellingsOf)
  const keys = spellings.map(keyOf).filter(strong)
  if (keys.length === 0) return text
  const asWritten = spellings.filter(strong)
  const normal = referenceNormalize(text)
  const normalText = joined(normal)
  const mask: Array<boolean> = new Array(text.length).fill(false)
  mark(text, asWritten, mask)
  const written = mask.some(Boolean)
  const normalMask: Array<boolean> = new Array(normalText.length).fill(false)
  mark(normalText, keys, normalMask)
  if (!written) return normalMask.some(Boolean) ? cut(normalText, normalMask) : text
  mark(normalText, keys, mask, (i) => [normal[i]!.lo, normal[i]!.hi])
  const rest = joined(referenceNormalize(cut(text, mask)))
  const restMask: Array<boolean> = new Array(rest.length).fill(false)
  mark(rest, keys, restMask)
  return cut(rest, restMask)
}
