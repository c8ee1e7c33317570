/**
 * Plain-text tables: left-aligned text, right-aligned numbers, one header
 * line and a rule, widths taken from the widest cell of each column. Every
 * cell and value is shown through `Printable.printable` (a control character
 * of the service's text is an escape such as `\u001b`, never acted on).
 *
 * @since 0.1.0
 */
import { printable } from "./Printable.ts"

/**
 * A column: its header, how to read a cell from a row, and its alignment
 * (numbers are right-aligned by default).
 *
 * @example
 * ```ts
 * import { render } from "@connected-vehicle/sample/Table"
 * import type { Column } from "@connected-vehicle/sample/Table"
 *
 * const columns: ReadonlyArray<Column<{ readonly id: string; readonly km: number }>> = [
 *   { header: "id", cell: (r) => r.id },
 *   { header: "km", cell: (r) => r.km, align: "right" }
 * ]
 * const table = render([{ id: "v-1", km: 20100 }], columns)
 * ```
 * @since 0.1.0
 * @category models
 */
export interface Column<A> {
  readonly header: string
  readonly cell: (row: A) => string | number | boolean | null | undefined
  readonly align?: "left" | "right" | undefined
}

const text = (value: string | number | boolean | null | undefined): string =>
  value === null || value === undefined ? "-" : printable(String(value))

/**
 * Renders rows as an aligned table (no trailing spaces); each cell on one
 * line, its control characters escaped (see `Printable.printable`).
 *
 * @example
 * ```ts
 * import { render } from "@connected-vehicle/sample/Table"
 *
 * render([{ make: "Tesla", count: 3 }], [
 *   { header: "MAKE", cell: (r) => r.make },
 *   { header: "COUNT", cell: (r) => r.count }
 * ])
 * // MAKE   COUNT
 * // -----  -----
 * // Tesla      3
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const render = <A>(rows: ReadonlyArray<A>, columns: ReadonlyArray<Column<A>>): string => {
  const cells = rows.map((row) => columns.map((column) => column.cell(row)))
  const right = columns.map((column, i) =>
    column.align === undefined
      ? cells.length > 0 && cells.every((row) => typeof row[i] === "number" || row[i] === null || row[i] === undefined)
      : column.align === "right"
  )
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((row) => text(row[i]).length))
  )
  const line = (values: ReadonlyArray<string>) =>
    values.map((value, i) => (right[i] ? value.padStart(widths[i]!) : value.padEnd(widths[i]!))).join("  ").trimEnd()
  return [
    line(columns.map((column) => column.header)),
    line(widths.map((width) => "-".repeat(width))),
    ...cells.map((row) => line(row.map(text)))
  ].join("\n")
}

/**
 * Renders `key: value` lines with the keys padded to one width; each value
 * on one line, its control characters escaped (see `Printable.printable`).
 *
 * @example
 * ```ts
 * import { keyValues } from "@connected-vehicle/sample/Table"
 *
 * keyValues([["Vehicle", "v-1"], ["Odometer", "12 km"]])
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const keyValues = (pairs: ReadonlyArray<readonly [string, string | number | boolean | null | undefined]>): string => {
  const width = Math.max(0, ...pairs.map(([key]) => key.length))
  return pairs.map(([key, value]) => `${(key + ":").padEnd(width + 1)} ${text(value)}`).join("\n")
}

/**
 * A section heading: the title and a rule of its length.
 *
 * @example
 * ```ts
 * import { heading } from "@connected-vehicle/sample/Table"
 *
 * heading("1. Compatibility")
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const heading = (title: string): string => `\n${title}\n${"=".repeat(title.length)}`
