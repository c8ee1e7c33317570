/**
 * The export writer: a stream of pages written to a file as NDJSON (one JSON
 * object per line) or CSV (a header row, then one row per item), page by
 * page, so memory stays proportional to one page.
 *
 * @since 0.1.0
 */
import { Effect, FileSystem, Stream } from "effect"
import type { PlatformError } from "effect"
import { dirname } from "node:path"
import type { Progress } from "./Progress.ts"
import { SampleError } from "./SampleError.ts"

/**
 * `ndjson` or `csv`.
 *
 * @example
 * ```ts
 * import { formatOf } from "@connected-vehicle/sample/Export"
 * import type { Format } from "@connected-vehicle/sample/Export"
 *
 * const format: Format = formatOf("vehicles.csv", undefined) // "csv"
 * ```
 * @since 0.1.0
 * @category models
 */
export type Format = "ndjson" | "csv"

/**
 * The format of an explicit `--format`, else of the file extension
 * (`.csv` is CSV, anything else NDJSON).
 *
 * @example
 * ```ts
 * import { formatOf } from "@connected-vehicle/sample/Export"
 *
 * formatOf("out.csv", undefined) // "csv"
 * formatOf("out.json", "csv") // "csv"
 * ```
 * @since 0.1.0
 * @category utils
 */
export const formatOf = (file: string, explicit: Format | undefined): Format =>
  explicit ?? (file.toLowerCase().endsWith(".csv") ? "csv" : "ndjson")

/**
 * How one item becomes a CSV row.
 *
 * @example
 * ```ts
 * import type { CsvColumns } from "@connected-vehicle/sample/Export"
 *
 * const columns: CsvColumns<{ readonly id: string; readonly year: number }> = {
 *   headers: ["id", "year"],
 *   row: (vehicle) => [vehicle.id, vehicle.year]
 * }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface CsvColumns<A> {
  readonly headers: ReadonlyArray<string>
  readonly row: (item: A) => ReadonlyArray<string | number | boolean | null | undefined>
}

/**
 * One CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
 *
 * @example
 * ```ts
 * import { csvField } from "@connected-vehicle/sample/Export"
 *
 * csvField('say "hi", bye') // '"say ""hi"", bye"'
 * ```
 * @since 0.1.0
 * @category formatting
 */
export const csvField = (value: string | number | boolean | null | undefined): string => {
  const text = value === null || value === undefined ? "" : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, "\"\"")}"` : text
}

/**
 * A page of the stream: its items and, when known, the total of the list.
 *
 * @example
 * ```ts
 * import type { ExportPage } from "@connected-vehicle/sample/Export"
 *
 * const page: ExportPage<string> = { items: ["vehicle-1", "vehicle-2"], total: 40 }
 * ```
 * @since 0.1.0
 * @category models
 */
export interface ExportPage<A> {
  readonly items: ReadonlyArray<A>
  readonly total?: number | undefined
}

/** Why the file cannot be created, naming its directory (a missing one is a usage error: exit 2). */
const cannotCreate = (file: string, error: PlatformError.PlatformError): SampleError => {
  const directory = dirname(file)
  const reason = error.reason._tag === "NotFound"
    ? `the directory ${directory} does not exist`
    : error.reason._tag === "PermissionDenied"
    ? `no permission to create a file in ${directory}`
    : `cannot create a file in ${directory} (${error.reason._tag})`
  return new SampleError({ reason: `Cannot write ${file}: ${reason}`, usage: error.reason._tag === "NotFound" })
}

/**
 * Writes every page of `pages` to `file` and returns the number of records.
 * Interrupted (Ctrl-C) or failed, it leaves no file behind and ends the
 * progress line. A file that cannot be created (a missing directory, no
 * permission) is a `SampleError` naming its directory.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import * as Export from "@connected-vehicle/sample/Export"
 *
 * const write = Export.write({
 *   file: "ids.csv",
 *   format: "csv",
 *   pages: Stream.make({ items: [{ id: "a" }, { id: "b" }] }),
 *   csv: { headers: ["id"], row: (item) => [item.id] }
 * })
 * ```
 * @since 0.1.0
 * @category utils
 */
export const write = <A, E, R>(options: {
  readonly file: string
  readonly format: Format
  readonly pages: Stream.Stream<ExportPage<A>, E, R>
  readonly csv: CsvColumns<A>
  readonly progress?: Progress | undefined
}): Effect.Effect<number, E | PlatformError.PlatformError | SampleError, R | FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    // written next to the target and renamed on success: a failure (a bad
    // argument, the service, the network) leaves an existing file untouched
    const temporary = `${options.file}.${process.pid}-${Date.now().toString(36)}.tmp`
    const count = yield* Effect.scoped(Effect.gen(function*() {
      const file = yield* fs.open(temporary, { flag: "wx" }).pipe(
        Effect.mapError((error) => cannotCreate(options.file, error))
      )
      const encoder = new TextEncoder()
      const put = (text: string) => file.writeAll(encoder.encode(text))
      if (options.format === "csv") yield* put(options.csv.headers.map(csvField).join(",") + "\n")
      let count = 0
      yield* Stream.runForEach(options.pages, (page) =>
        Effect.gen(function*() {
          if (page.items.length > 0) {
            const lines = options.format === "csv"
              ? page.items.map((item) => options.csv.row(item).map(csvField).join(","))
              : page.items.map((item) => JSON.stringify(item))
            yield* put(lines.join("\n") + "\n")
          }
          count += page.items.length
          if (options.progress !== undefined) yield* options.progress.page(page.items.length, page.total)
        }))
      return count
    })).pipe(
      Effect.tap(() => fs.rename(temporary, options.file)),
      Effect.onError(() => Effect.ignore(fs.remove(temporary, { force: true })))
    )
    if (options.progress !== undefined) yield* options.progress.done
    return count
  }).pipe(Effect.ensuring(options.progress?.close ?? Effect.void))
