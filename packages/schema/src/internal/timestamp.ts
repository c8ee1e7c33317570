/**
 * @internal
 */

// An ISO 8601 date-time with an explicit zone, as the service sends them.
const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/


const digit = (s: string, i: number): number => {
  const c = s.charCodeAt(i) - 48
  return c >= 0 && c <= 9 ? c : -1
}

const two = (s: string, i: number): number => {
  const a = digit(s, i)
  const b = digit(s, i + 1)
  return a < 0 || b < 0 ? -1 : a * 10 + b
}

const daysIn = (year: number, month: number): number =>
  month === 2
    ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28)
    : month === 4 || month === 6 || month === 9 || month === 11
    ? 30
    : 31

/**
 * The common form, `YYYY-MM-DDTHH:mm:ss.sssZ` or `YYYY-MM-DDTHH:mm:ssZ`
 * (years 0100 to 9999), read digit by digit: its epoch milliseconds, or
 * `undefined` when the string is not exactly that form with valid fields
 * (then `Date.parse` decides).
 */
const fastMillis = (s: string): number | undefined => {
  const n = s.length
  if ((n !== 24 && n !== 20) || s.charCodeAt(n - 1) !== 90 /* Z */) return undefined
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) {
    return undefined
  }
  const century = two(s, 0)
  const yy = two(s, 2)
  const month = two(s, 5)
  const day = two(s, 8)
  const hour = two(s, 11)
  const minute = two(s, 14)
  const second = two(s, 17)
  if (century < 1 || yy < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59) return undefined
  if (second < 0 || second > 59) return undefined
  const year = century * 100 + yy
  if (day > daysIn(year, month)) return undefined
  let millis = 0
  if (n === 24) {
    if (s.charCodeAt(19) !== 46) return undefined
    const a = digit(s, 20)
    const b = digit(s, 21)
    const c = digit(s, 22)
    if (a < 0 || b < 0 || c < 0) return undefined
    millis = a * 100 + b * 10 + c
  }
  return (((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute) * 60 + second) * 1000 + millis
}

/** Days from 1970-01-01 to a proleptic Gregorian date (years >= 1; integer arithmetic, as `Date.UTC` counts them). */
const daysFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yearOfEra = y - era * 400
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

/**
 * The epoch milliseconds of an ISO 8601 date-time with an explicit zone
 * (what `Date.parse` gives for it), or `NaN` when the string is not one.
 * The common form is read without `Date.parse` or a regular expression.
 *
 * @internal
 */
export const parseIsoMillis = (input: string): number => {
  const fast = fastMillis(input)
  if (fast !== undefined) return fast
  return isoPattern.test(input) ? Date.parse(input) : Number.NaN
}
