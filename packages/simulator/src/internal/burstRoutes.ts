/**
 * The control routes of bursts (under `/_simulator`, loopback only):
 * `POST /_simulator/bursts` starts one; `GET /_simulator/bursts/current`
 * (its progress; `?wait=1` answers once it is done), `DELETE` cancels it;
 * `GET /_simulator/bursts/current/truth` is its ground truth.
 *
 * @internal
 */
import { Effect, Schema } from "effect"
import type { Duration } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import type { Deliveries } from "../Delivery.ts"
import { answer, bodyOf } from "./deliveryRoutes.ts"

const BurstBody = Schema.Struct({
  events: Schema.Number,
  vehicles: Schema.Number,
  ratePerSecond: Schema.Number,
  duplicateRatio: Schema.optionalKey(Schema.Number),
  lostAckRatio: Schema.optionalKey(Schema.Number),
  reorderWindow: Schema.optionalKey(Schema.Number),
  seed: Schema.optionalKey(Schema.Number),
  webhookIds: Schema.optionalKey(Schema.Array(Schema.String)),
  signals: Schema.optionalKey(Schema.Array(Schema.String)),
  poisonEventIds: Schema.optionalKey(Schema.Array(Schema.String)),
  /** Each in milliseconds, or a duration such as "200 millis". */
  retryDelays: Schema.optionalKey(Schema.Array(Schema.Union([Schema.Number, Schema.String]))),
  failover: Schema.optionalKey(Schema.Boolean),
  maxInFlight: Schema.optionalKey(Schema.Number)
})

const expected = "{events, vehicles, ratePerSecond, duplicateRatio?, lostAckRatio?, reorderWindow?, seed?, webhookIds?, " +
  "signals?, poisonEventIds?, retryDelays?, failover?, maxInFlight?}"

/** The answer of a burst route, or undefined for another path. */
export const control = (
  engine: Deliveries,
  request: HttpServerRequest.HttpServerRequest,
  path: string
): Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined => {
  switch (`${request.method} ${path}`) {
    case "POST /_simulator/bursts":
      return answer(
        Effect.flatMap(bodyOf(request, BurstBody, expected), (body) =>
          // a string that is no duration is refused when the burst is planned
          engine.startBurst({ ...body, retryDelays: body.retryDelays as ReadonlyArray<Duration.Input> | undefined })),
        201
      )
    case "GET /_simulator/bursts/current": {
      const wait = new URLSearchParams(request.url.split("?")[1] ?? "").get("wait")
      return answer(wait === "1" || wait === "true" ? engine.awaitBurst : engine.burst)
    }
    case "DELETE /_simulator/bursts/current":
      return answer(engine.cancelBurst)
    case "GET /_simulator/bursts/current/truth":
      return answer(engine.burstTruth)
    default:
      return undefined
  }
}
