/** `export connections` and `export signals`: a list streamed to a file. */
import { DateTime, Effect, Option, type Schema, Stream } from "effect"
import { Command, Flag } from "effect/cli"
import type { ConnectionListItem } from "@connected-vehicle/schema/Connection"
import type { Signal } from "@connected-vehicle/schema/Signal"
import * as Export from "../../Export.ts"
import * as Progress from "../../Progress.ts"
import { mode, optionals, output, userFilter, vehicleArgument, withSdk } from "./shared.ts"

const out = Flag.String("out").pipe(Flag.withDescription("File to write"))
const format = Flag.Literals("format", ["ndjson", "csv"]).pipe(
  Flag.withDescription("ndjson or csv (default: by the file extension, .csv is CSV)"),
  Flag.optional
)
const exportPageSize = Flag.Int("page-size").pipe(Flag.withDescription("Items per request (1 to 100)"), Flag.withDefault(100))

/**
 * Streams the pages of a v3 list (`pages` of the SDK) to `--out` with a
 * progress line on stderr, then says what was written.
 */
const exportList = <A, E, R>(
  label: string,
  json: boolean,
  target: { readonly out: string; readonly format: Option.Option<Export.Format> },
  pages: Stream.Stream<{ readonly data: ReadonlyArray<A>; readonly meta: { readonly totalCount: number } }, E, R>,
  csv: Export.CsvColumns<A>
) =>
  Effect.gen(function*() {
    const fileFormat = Export.formatOf(target.out, Option.getOrUndefined(target.format))
    const records = yield* Export.write({
      file: target.out,
      format: fileFormat,
      progress: yield* Progress.start(label),
      pages: Stream.map(pages, (p) => ({ items: p.data, total: p.meta.totalCount })),
      csv
    })
    yield* output(json, { file: target.out, format: fileFormat, records }, () =>
      `Wrote ${records} ${label} to ${target.out} (${fileFormat})`)
  })

const connectionColumns: Export.CsvColumns<ConnectionListItem> = {
  headers: ["id", "userId", "userExternalId", "vehicleId", "make", "model", "year", "powertrainType", "mode", "permissions", "createdAt", "updatedAt"],
  row: (c) => [
    c.id,
    c.attributes.user.id,
    c.attributes.user.externalId,
    c.relationships.vehicle.data.id,
    c.attributes.vehicle.make,
    c.attributes.vehicle.model,
    c.attributes.vehicle.year,
    c.attributes.vehicle.powertrainType,
    c.attributes.vehicle.mode,
    c.attributes.permissions.join(" "),
    DateTime.formatIso(c.meta.createdAt),
    DateTime.formatIso(c.meta.updatedAt)
  ]
}

/** A signal's `value` (any JSON value) as a CSV field: an array or an object as its JSON text. */
const jsonCell = (value: Schema.Json | undefined) => typeof value === "object" && value !== null ? JSON.stringify(value) : value

const signalColumns = (vehicleId: string): Export.CsvColumns<Signal> => ({
  headers: ["vehicleId", "code", "name", "group", "status", "value", "unit", "errorType", "errorCode", "resolution", "retrievedAt"],
  row: (s) => [
    vehicleId,
    s.attributes.code,
    s.attributes.name,
    s.attributes.group,
    s.attributes.status.value,
    jsonCell(s.attributes.body.value),
    s.attributes.body.unit,
    s.attributes.status.error?.type,
    s.attributes.status.error?.code,
    s.attributes.status.error?.resolution?.type,
    DateTime.formatIso(s.meta.retrievedAt)
  ]
})

const exportConnections = Command.make("connections", { out, format, pageSize: exportPageSize, user: userFilter, mode }, (input) =>
  withSdk((flags, M) =>
    Effect.flatMap(M.Connections, (service) =>
      exportList(
        "connections",
        flags.json,
        input,
        service.pages({ pageSize: input.pageSize, ...optionals({ userId: input.user, mode: input.mode }) }),
        connectionColumns
      ))
  )).pipe(Command.withDescription("Stream every connection to a file, page by page, with a progress bar on stderr"))

const exportSignals = Command.make("signals", {
  vehicle: vehicleArgument,
  user: Flag.String("user").pipe(Flag.withDescription("Id of the vehicle's user")),
  out,
  format,
  pageSize: exportPageSize
}, (input) =>
  withSdk((flags, M) =>
    Effect.flatMap(M.Signals, (service) =>
      exportList(
        "signals",
        flags.json,
        input,
        service.pages({ vehicleId: input.vehicle, userId: input.user, pageSize: input.pageSize }),
        signalColumns(input.vehicle)
      ))
  )).pipe(Command.withDescription("Stream every signal of a vehicle to a file"))

export const exportCommand = Command.make("export").pipe(
  Command.withDescription("Export a list to NDJSON or CSV (by --format or the file extension)"),
  Command.withSubcommands([exportConnections, exportSignals])
)
