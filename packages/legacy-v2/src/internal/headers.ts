/**
 * @internal
 */
import { Exit, Result, Schema } from "effect"
import { DecodeString } from "@connected-vehicle/schema/Common"
import type { DecodeString as DecodeStringSpec } from "@connected-vehicle/schema/Common"
import { DataAge } from "@connected-vehicle/schema/Legacy"
import type { UnitSystem } from "@connected-vehicle/schema/Legacy"
import { requestIdOf } from "@connected-vehicle/transport/TransportConfig"
import { ConnectedVehicleError, InvalidResponse } from "@connected-vehicle/transport/ConnectedVehicleError"
import type { Deprecation } from "../Deprecation.ts"
import { fromHeaders } from "../Deprecation.ts"
import type { Reading } from "../Reading.ts"
import { isUnitSystem } from "./args.ts"

const decodeWithSchema = Schema.decodeUnknownExit(DataAge)
// the schema's own one-function decoding of a string (`DecodeString`, checked
// against Effect's decoder by the schema package's tests); a string it refuses
// goes to the schema for its error
const annotation = DataAge.ast.annotations?.[DecodeString] as DecodeStringSpec | undefined
// only the annotation given for this very node (a derived schema with checks of its own inherits it)
const decodeString = annotation !== undefined && annotation.encoding === DataAge.ast.encoding && DataAge.ast.checks === undefined
  ? annotation.decode
  : undefined

const decodeDataAge = (age: string): Exit.Exit<typeof DataAge.Type, Schema.SchemaError> => {
  const value = decodeString?.(age)
  return value === undefined ? decodeWithSchema(age) : Exit.succeed(value as typeof DataAge.Type)
}

/**
 * Builds a {@link Reading} from a decoded value and the headers it came with.
 * A malformed `sc-data-age` or `sc-unit-system` is an `InvalidResponse`.
 * `deprecation` is read from the same headers (else `context.deprecation`).
 *
 * @internal
 */
export const toReading = <A>(
  value: A,
  headers: Readonly<Record<string, string | undefined>>,
  context: {
    readonly requested: UnitSystem
    readonly requestIdHeader: string | ReadonlyArray<string>
    readonly method: string
    /** The URL as errors show it (or how to get it: only a failure needs it). */
    readonly url: string | (() => string)
    readonly status: number
    /** The request id, when the caller has read it already (else read from `headers`). */
    readonly requestId?: string | undefined
    readonly deprecation?: Deprecation | undefined
  }
): Result.Result<Reading<A>, ConnectedVehicleError> => {
  const requestId = "requestId" in context
    ? context.requestId
    : requestIdOf(headers, typeof context.requestIdHeader === "string" ? [context.requestIdHeader] : context.requestIdHeader)
  const fail = (description: string) =>
    Result.fail(
      new ConnectedVehicleError({
        reason: new InvalidResponse({
          method: context.method,
          url: typeof context.url === "string" ? context.url : context.url(),
          status: context.status,
          ...(requestId === undefined ? {} : { requestId }),
          description
        })
      })
    )
  const age = headers["sc-data-age"]
  const dataAge = age === undefined ? undefined : decodeDataAge(age)
  if (dataAge !== undefined && Exit.isFailure(dataAge)) {
    return fail(`sc-data-age is not an ISO 8601 date-time: ${JSON.stringify(age)}`)
  }
  const unit = headers["sc-unit-system"] ?? context.requested
  if (!isUnitSystem(unit)) return fail(`sc-unit-system is not metric or imperial: ${JSON.stringify(unit)}`)
  const deprecation = fromHeaders(headers) ?? context.deprecation
  return Result.succeed({
    value,
    dataAge: dataAge?.value,
    unitSystem: unit,
    requestId,
    ...(deprecation === undefined ? {} : { deprecation })
  })
}
