/** `export connections` and `export signals`: a list streamed to a file. */
import { DateTime, Effect, Stream } from "effect"
import { Command, Flag } from "effect/cli"
import * as Export from "../../Export.ts"
import * as Progress from "../../Progress.ts"
import { mode, optionalValue, output, vehicleArgument, withSdk } from "./shared.ts"

const out = Flag.String("out").pipe(Flag.withDescription("File to write"))
const format = Flag.Literals("format", ["ndjson", "csv"]).pipe(
  Flag.withDescription("ndjson or csv (default: by the file extension, .csv is CSV)"),
  Flag.optional
)
const exportPageSize = Flag.Int("page-size").pipe(Flag.withDescription("Items per request (1 to 100)"), Flag.withDefault(100))

/** The pages of a v3 list (`pages` of the SDK) as export pages with the total for the progress bar. */
const exportPages = <A, E, R>(
  pages: Stream.Stream<{ readonly data: ReadonlyArray<A>; readonly meta: { readonly totalCount: number } }, E, R>
): Stream.Stream<Export.ExportPage<A>, E, R> => Stream.map(pages, (p) => ({ items: p.data, total: p.meta.totalCount }))

const exportConnections = Command.make("connections", {
  out,
  format,
  pageSize: exportPageSize,
  user: Flag.String("user").pipe(Flag.withDescription("Filter by user id"), Flag.optional),
  mode
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      const service = yield* M.Connections
      const fileFormat = Export.formatOf(input.out, optionalValue(input.format))
      const progress = yield* Progress.start("connections")
      const records = yield* Export.write({
        file: input.out,
        format: fileFormat,
        progress,
        pages: exportPages(
          service.pages({ pageSize: input.pageSize, userId: optionalValue(input.user), mode: optionalValue(input.mode) })
        ),
        csv: {
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
      })
      const result = { file: input.out, format: fileFormat, records }
      yield* output(flags.json, result, () => `Wrote ${records} connections to ${input.out} (${fileFormat})`)
    })
  )).pipe(Command.withDescription("Stream every connection to a file, page by page, with a progress bar on stderr"))

const exportSignals = Command.make("signals", {
  vehicle: vehicleArgument,
  user: Flag.String("user").pipe(Flag.withDescription("Id of the vehicle's user")),
  out,
  format,
  pageSize: exportPageSize
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      const service = yield* M.Signals
      const fileFormat = Export.formatOf(input.out, optionalValue(input.format))
      const progress = yield* Progress.start("signals")
      const records = yield* Export.write({
        file: input.out,
        format: fileFormat,
        progress,
        pages: exportPages(service.pages({ vehicleId: input.vehicle, userId: input.user, pageSize: input.pageSize })),
        csv: {
          headers: ["vehicleId", "code", "name", "group", "status", "value", "unit", "errorType", "errorCode", "resolution", "retrievedAt"],
          row: (s) => [
            input.vehicle,
            s.attributes.code,
            s.attributes.name,
            s.attributes.group,
            s.attributes.status.value,
            s.attributes.body.value,
            s.attributes.body.unit,
            s.attributes.status.error?.type,
            s.attributes.status.error?.code,
            s.attributes.status.error?.resolution?.type,
            DateTime.formatIso(s.meta.retrievedAt)
          ]
        }
      })
      const result = { file: input.out, format: fileFormat, records }
      yield* output(flags.json, result, () => `Wrote ${records} signals to ${input.out} (${fileFormat})`)
    })
  )).pipe(Command.withDescription("Stream every signal of a vehicle to a file"))

export const exportCommand = Command.make("export").pipe(
  Command.withDescription("Export a list to NDJSON or CSV (by --format or the file extension)"),
  Command.withSubcommands([exportConnections, exportSignals])
)
