/**
 * ISO 8601 dates whose fields exist: `2027-02-30` is no day (JavaScript's
 * `Date` makes it 2 March), `T24:00` or `T12:60` no time.
 *
 * @internal
 */

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-](\d{2}):(\d{2}))?)?$/

/** Whether a text starts like an ISO 8601 date (`YYYY-MM-DD...`): the form whose fields {@link isoDate} checks. */
export const looksIsoDate = (text: string): boolean => /^\d{4}-\d{2}-\d{2}/.test(text)

const daysIn = (year: number, month: number): number => {
  const last = new Date(0)
  last.setUTCFullYear(year, month, 0) // day 0 of the next month (years 0 to 99 too)
  return last.getUTCDate()
}

/**
 * The instant of an ISO 8601 date (`2027-06-01`, midnight UTC) or date and
 * time (`2027-06-01T12:30`, local time; `2027-06-01T12:30:00Z`,
 * `2027-06-01T12:30:00+02:00`) whose every field exists: month 1 to 12, a day
 * of that month, hour 0 to 23, minute and second 0 to 59, an offset of at most
 * 23:59. Anything else is `undefined`, never another day.
 */
export const isoDate = (text: string): Date | undefined => {
  const match = ISO.exec(text)
  if (match === null) return undefined
  const [year, month, day, hour, minute, second, , offsetHours, offsetMinutes] = [
    match[1],
    match[2],
    match[3],
    match[4],
    match[5],
    match[6],
    match[7],
    match[8],
    match[9]
  ].map((field) => field === undefined ? 0 : Number(field))
  const fits = month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysIn(year!, month!) &&
    hour! <= 23 && minute! <= 59 && second! <= 59 && offsetHours! <= 23 && offsetMinutes! <= 59
  const date = new Date(text)
  return fits && !Number.isNaN(date.getTime()) ? date : undefined
}
