/**
 * The group of the legacy v2.0 interface (`{legacy_url}`, paths include
 * `/v2.0`).
 *
 * @internal
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BatchRequest, BatchResponse, LegacyReads, UnitSystem, VehicleList } from "../../Legacy.ts"
import { EmbedsResponses } from "./annotations.ts"
import { deprecationHeaders, queryInteger, responseHeaders } from "./document.ts"
import { bearer, commonErrors, ConflictResponse, UnsupportedMediaTypeResponse } from "./responses.ts"

// the headers the service sets on a read (the batch carries them per entry, in its body)
const readHeaders = responseHeaders({
  "*": deprecationHeaders,
  "200": {
    "sc-data-age": { description: "ISO 8601 time of the vehicle's last report, when known" },
    "sc-unit-system": { description: "metric or imperial: the unit system of the body", required: true }
  }
})

const legacyRead = <const Name extends string, const Path extends `/${string}`, S extends Schema.Top>(
  name: Name,
  path: Path,
  success: S
) =>
  HttpApiEndpoint.get(name, `/v2.0/vehicles/:id${path}`, {
    params: { id: Schema.String },
    headers: { ...bearer, "sc-unit-system": Schema.optionalKey(UnitSystem) },
    success,
    error: [...commonErrors, ConflictResponse]
  }).annotate(OpenApi.Deprecated, true).annotate(OpenApi.Transform, readHeaders)

type Reads = typeof LegacyReads

// the endpoint of each read of the table: its name, its path, its schema
type ReadEndpoint = {
  [K in keyof Reads]: ReturnType<typeof legacyRead<K, Reads[K]["path"], Reads[K]["schema"]>>
}[keyof Reads]

// one endpoint per entry of `LegacyReads`, in its order (the only description of a read)
const readEndpoints = Object.entries(LegacyReads).map(([name, read]) =>
  legacyRead(name, read.path, read.schema)
) as ReadonlyArray<HttpApiEndpoint.Constraint> as readonly [ReadEndpoint, ...Array<ReadEndpoint>]

/**
 * Legacy vehicle-list paging (section 4.7): `limit` 1..50 (default 10 on the
 * service), `offset` >= 0.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { LegacyVehiclesQuery } from "@connected-vehicle/schema/Api"
 *
 * const isLegacyVehiclesQuery = Schema.is(LegacyVehiclesQuery)
 * ```
 * @category schemas
 * @since 0.1.0
 */
export const LegacyVehiclesQuery = Schema.Struct({
  limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 50 }))),
  offset: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)))
})

// as the endpoint sends it: the same decoding, the limits and defaults in the OpenAPI parameters (sections 4.7, 8)
const vehiclesQuery = LegacyVehiclesQuery.mapFields((fields) => ({
  limit: Schema.optionalKey(queryInteger(fields.limit.schema, { description: "Number of vehicle ids, an integer 1..50", default: 10 })),
  offset: Schema.optionalKey(queryInteger(fields.offset.schema, { description: "Index of the first vehicle id, an integer >= 0", default: 0 }))
}))

/**
 * Legacy v2.0 vehicle data (section 4.7): the vehicle list, one read per entry
 * of `LegacyReads` of `Legacy` (its name, path and schema, in its order) and
 * the batch. The reads answer with the headers
 * `sc-data-age` and `sc-unit-system`, the reads and the batch with
 * `Deprecation` and `Link` (and `Sunset` once a removal date is announced),
 * declared in the OpenAPI document. The reads and the batch are marked
 * deprecated (`OpenApi.Deprecated`, `deprecated: true` in the OpenAPI
 * document): v2.0 is deprecated as of December 1, 2026 (section 9.2; the
 * spec gives no removal date). The vehicle list is not (section 9.3: it may
 * be used while the move to v3 is completed). The batch is annotated
 * `EmbedsResponses`: its entries are responses to the request, which a client
 * scrubs of the request's credentials as it does an error body.
 *
 * @example
 * ```ts
 * import { HttpApi } from "effect/http-api"
 * import { LegacyGroup } from "@connected-vehicle/schema/Api"
 *
 * const Api = HttpApi.make("example").add(LegacyGroup)
 * ```
 * @category groups
 * @since 0.1.0
 */
export class LegacyGroup extends HttpApiGroup.make("legacy").add(
  HttpApiEndpoint.get("vehicles", "/v2.0/vehicles", {
    query: vehiclesQuery,
    headers: bearer,
    success: VehicleList,
    error: commonErrors
  }),
  ...readEndpoints,
  HttpApiEndpoint.post("batch", "/v2.0/vehicles/:id/batch", {
    params: { id: Schema.String },
    headers: { ...bearer, "sc-unit-system": Schema.optionalKey(UnitSystem) },
    payload: BatchRequest,
    success: BatchResponse,
    error: [...commonErrors, UnsupportedMediaTypeResponse]
  }).annotate(OpenApi.Deprecated, true).annotate(OpenApi.Transform, responseHeaders({ "*": deprecationHeaders }))
    // its entries are responses to this request (headers, bodies as the server wrote them)
    .annotate(EmbedsResponses, true)
) {}
