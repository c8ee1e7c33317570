/**
 * The v2.0 deprecation on the simulator's hot path: the headers, the retired
 * answer and the migration summary with the removal date in epoch
 * milliseconds (checked once, by the layer constructors), and the check of a
 * date input (see `Sunset` for the public forms, which take dates).
 *
 * @internal
 */
import { DateTime, Option } from "effect"
import { HttpServerResponse } from "effect/http"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import { envelope } from "../Env.ts"
import { isoDate, looksIsoDate } from "./isoDate.ts"

/** The deprecation date of v2.0 (section 9.2) in epoch milliseconds: 2026-12-01T00:00:00Z. */
export const DEPRECATION_EPOCH = Date.UTC(2026, 11, 1)

/** 10000-01-01T00:00:00Z: the first instant an IMF-fixdate (a 4-digit year), so a `Sunset` header, cannot write. */
export const SUNSET_LIMIT = Date.UTC(10000, 0, 1)

/**
 * The removal date of a `Sunset` header in epoch milliseconds: a date input
 * as {@link epochOf} takes it, before 10000-01-01 ({@link SUNSET_LIMIT});
 * else an `InvalidArgument` naming `field`.
 */
export const sunsetEpochOf = (field: string, input: DateTime.DateTime.Input): number => {
  const millis = epochOf(field, input)
  if (millis < SUNSET_LIMIT) return millis
  throw new InvalidArgument({
    field,
    message: `${field}: Expected a date before 10000-01-01 (the Sunset header is an IMF-fixdate, a 4-digit year); got ${new Date(millis).toISOString()}`
  })
}

/** The path of the migration summary the `Link` header points to. */
export const MIGRATION_GUIDE_PATH = "/docs/migrating-to-v3"

/**
 * The instant of a date input (a `DateTime`, a `Date`, epoch milliseconds or
 * an ISO 8601 string whose fields exist) in epoch milliseconds; anything else
 * (`"2027-02-30"`, `NaN`, an invalid `Date`) throws an `InvalidArgument`
 * naming `field`.
 */
export const epochOf = (field: string, input: DateTime.DateTime.Input): number => {
  let decoded: Option.Option<DateTime.DateTime> = Option.none()
  // an ISO 8601 string whose fields do not exist (2027-02-30) is no date, not the day `Date` rolls it over to
  if (!(typeof input === "string" && looksIsoDate(input) && isoDate(input) === undefined)) {
    try {
      decoded = DateTime.make(input)
    } catch {
      // not a date
    }
  }
  if (Option.isNone(decoded)) {
    throw new InvalidArgument({
      field,
      message: `${field}: Expected a date (a DateTime, a Date, epoch milliseconds or an ISO 8601 string)`
    })
  }
  return DateTime.toEpochMillis(decoded.value)
}

const deprecationByOrigin = new Map<string, Readonly<Record<string, string>>>()

/** `Deprecation`, `Link` (on `origin`) and `Sunset` when a removal date (epoch milliseconds) is configured. */
export const deprecationHeaders = (origin: string, sunset: number | undefined): Readonly<Record<string, string>> => {
  // built once per origin and sunset (a simulator has one, or one per root): every deprecated response carries them
  const key = sunset === undefined ? origin : `${origin} ${sunset}`
  let headers = deprecationByOrigin.get(key)
  if (headers === undefined) {
    headers = Object.freeze({
      deprecation: `@${DEPRECATION_EPOCH / 1000}`,
      ...(sunset === undefined ? {} : { sunset: new Date(sunset).toUTCString() }),
      link: `<${origin}${MIGRATION_GUIDE_PATH}>; rel="deprecation"; type="text/markdown"`
    })
    if (deprecationByOrigin.size >= 64) deprecationByOrigin.clear()
    deprecationByOrigin.set(key, headers)
  }
  return headers
}

/** Whether v2.0 is retired at `now` under `mode` (epoch milliseconds). */
export const isRetired = (mode: boolean | "afterSunset" | undefined, now: number, sunset: number | undefined): boolean =>
  mode === true || (mode === "afterSunset" && sunset !== undefined && now >= sunset)

const day = (millis: number) => new Date(millis).toISOString().slice(0, 10)

/** How a retired v2.0 is described at `now`: past tense once the removal date passed, a rehearsal before it. */
const retiredState = (sunset: number | undefined, now: number) =>
  sunset === undefined
    ? "is retired"
    : now >= sunset
    ? `was retired on ${day(sunset)}`
    : `is answered 410 in a removal rehearsal (--retire-v2 / retireLegacy); the announced removal date is ${day(sunset)}`

/**
 * `410 Gone` of a retired v2.0 endpoint at `now` (epoch milliseconds), naming
 * the removal date when one is configured.
 */
export const retiredResponse = (origin: string, sunset: number | undefined, now: number): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(
    envelope(
      410,
      `The v2.0 interface (deprecated as of ${day(DEPRECATION_EPOCH)}) ${retiredState(sunset, now)}; use v3 (see ${origin}${MIGRATION_GUIDE_PATH})`,
      { code: "GONE", title: "Gone" }
    ),
    { status: 410 }
  )

/** `GET /docs/migrating-to-v3`: the summary, the removal date only when one is configured. */
export const guideResponse = (sunset: number | undefined): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(
    [
      "# Migrating from v2.0 to v3",
      "",
      `v2.0 is deprecated as of ${new Date(DEPRECATION_EPOCH).toUTCString()} (RFC 9745 Deprecation header); ${
        sunset === undefined
          ? "no removal (sunset) date is announced."
          : `its sunset date is ${new Date(sunset).toUTCString()} (RFC 8594 Sunset header).`
      }`,
      "The legacy vehicle list (GET /v2.0/vehicles) is not deprecated: it may be used while the move to v3 is completed.",
      "v3 reads use the application token (client-credentials grant) and the vehicle's user id in sc-user-id.",
      "",
      "| v2.0 read | v3 signal |",
      "| --- | --- |",
      "| /odometer | odometer-traveleddistance (unit in the body) |",
      "| /location | location-preciselocation |",
      "| /vin | vehicleidentification-vin |",
      "| /engine/oil | internalcombustionengine-oillife (percent) |",
      "| /tires/pressure | wheel-tirepressures (kPa) |",
      "| /service/history | none |",
      "| /vehicles (not deprecated) | GET /v3/connections?filter[userId]= |",
      "",
      "SDK: Migration of @connected-vehicle/v3; guide: docs/migrating-to-v3.md.",
      ""
    ].join("\n"),
    { contentType: "text/markdown; charset=utf-8" }
  )
