/**
 * The control routes of webhook deliveries (under `/_simulator`): the
 * request bodies, their decoding (a 400 never quotes a `secret`) and the
 * answers of `Delivery.control`.
 *
 * @internal
 */
import { Duration, Effect, Redacted, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import type { HttpServerRequest } from "effect/http"
import type { Deliveries, DeliveryLogEntry } from "../Delivery.ts"
import { envelope } from "../Env.ts"
import { cutDetail } from "./controlBody.ts"
import { notAllowed, segmentsOf } from "./controlPaths.ts"
import { WebhookControlError } from "./deliveryPolicy.ts"

const WebhookBody = Schema.Struct({
  name: Schema.String,
  callbackUri: Schema.String,
  errorCallbackUri: Schema.optionalKey(Schema.NullOr(Schema.String)),
  triggers: Schema.Array(Schema.String),
  data: Schema.Array(Schema.String),
  isEnabled: Schema.optionalKey(Schema.Boolean),
  autoSubscribe: Schema.optionalKey(Schema.Boolean),
  secret: Schema.optionalKey(Schema.String)
})

const PatchBody = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  callbackUri: Schema.optionalKey(Schema.String),
  errorCallbackUri: Schema.optionalKey(Schema.NullOr(Schema.String)),
  isEnabled: Schema.optionalKey(Schema.Boolean),
  secret: Schema.optionalKey(Schema.String)
})

const SubscriptionBody = Schema.Struct({ webhookId: Schema.String, userId: Schema.String, vehicleId: Schema.String })

const ErrorBody = Schema.Struct({
  type: Schema.optionalKey(Schema.String),
  code: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  suggestedUserMessage: Schema.optionalKey(Schema.String),
  resolution: Schema.optionalKey(Schema.String),
  signals: Schema.optionalKey(Schema.Array(Schema.String))
})

const json = (body: unknown, status = 200) => HttpServerResponse.jsonUnsafe(body, { status })

/** An attempt in the JSON of `GET /_simulator/deliveries`: JSON has no duration, the latency is `latencyMillis`. */
const entryJson = ({ latency, outcome, ...rest }: DeliveryLogEntry) => ({
  ...rest,
  latencyMillis: Duration.toMillis(latency),
  outcome
})
const problem = (status: number, detail: string) => HttpServerResponse.jsonUnsafe(envelope(status, detail), { status })

/**
 * How every control route decodes its JSON body: a member the schema does not
 * take is an issue naming it (rather than dropped), and every issue is listed.
 */
export const exactly = { onExcessProperty: "error", errors: "all" } as const

/**
 * The request body decoded with `schema` ({@link exactly}: a member the schema
 * does not take is a 400 naming it); the 400 detail never quotes a `secret`
 * member, and is cut short (`controlBody.cutDetail`; the burst routes use it too).
 */
export const bodyOf = <S extends Schema.Top>(
  request: HttpServerRequest.HttpServerRequest,
  schema: S,
  expected: string
) =>
  request.json.pipe(
    Effect.mapError(() => new WebhookControlError({ status: 400, detail: `The body must be JSON: ${expected}` })),
    Effect.flatMap((body) =>
      Schema.decodeUnknownEffect(schema)(body, exactly).pipe(
        Effect.mapError((error) => {
          const secret = (body as { readonly secret?: unknown } | null)?.secret
          let message = error.message
          if (typeof secret === "string" && secret !== "") message = message.replaceAll(secret, "<redacted>")
          if (typeof secret === "string" && secret !== "" && message.includes(JSON.stringify(secret))) message = "invalid"
          return new WebhookControlError({ status: 400, detail: `Expected ${expected}: ${cutDetail(message)}` })
        })
      )
    )
  ) as Effect.Effect<S["Type"], WebhookControlError>

const withoutUndefined = <A extends object>(value: A): A =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as A

export const answer = <A>(effect: Effect.Effect<A, WebhookControlError>, status = 200) =>
  effect.pipe(
    Effect.match({
      onFailure: (error) => problem(error.status, error.detail),
      onSuccess: (body) => body === undefined ? HttpServerResponse.empty({ status: 204 }) : json(withoutUndefined(body as object), status)
    })
  )

/** The paths of {@link control} (their methods: `controlPaths`). */
const deliveryPath = /^\/_simulator\/(webhooks|subscriptions|vehicles|deliveries)(\/|$)/

/** The control routes of deliveries, or undefined for another path (see `Delivery.control`). */
export const control = (
  engine: Deliveries,
  request: HttpServerRequest.HttpServerRequest,
  path: string
): Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined => {
  const method = request.method
  if (path === "/_simulator/webhooks" && method === "POST") {
    return answer(
      Effect.flatMap(
        bodyOf(
          request,
          WebhookBody,
          "{name, callbackUri, errorCallbackUri?, triggers: [codes], data: [codes], isEnabled?, autoSubscribe?, secret?}"
        ),
        (body) =>
          engine.createWebhook({
            ...body,
            errorCallbackUri: body.errorCallbackUri ?? undefined,
            secret: body.secret === undefined ? undefined : Redacted.make(body.secret, { label: "webhook secret" })
          })
      ),
      201
    )
  }
  const webhook = segmentsOf("/_simulator/webhooks/:id", path)
  if (webhook !== undefined && method === "POST") {
    const id = webhook[0]!
    return answer(Effect.flatMap(
      bodyOf(request, PatchBody, "{name?, callbackUri?, errorCallbackUri?, isEnabled?, secret?}"),
      (patch) =>
        engine.updateWebhook(id, {
          ...patch,
          secret: patch.secret === undefined ? undefined : Redacted.make(patch.secret, { label: "webhook secret" })
        })
    ))
  }
  if (webhook !== undefined && method === "DELETE") return answer(engine.deleteWebhook(webhook[0]!))
  if (path === "/_simulator/subscriptions" && method === "POST") {
    return answer(Effect.flatMap(bodyOf(request, SubscriptionBody, "{webhookId, userId, vehicleId}"), engine.subscribe), 201)
  }
  const signal = segmentsOf("/_simulator/vehicles/:id/signals/:code", path)
  if (signal !== undefined && method === "POST") {
    const [vehicleId, code] = signal as [string, string]
    return answer(Effect.flatMap(
      Effect.mapError(request.json, () => new WebhookControlError({ status: 400, detail: "The body must be the signal's new body as JSON" })),
      (body) => engine.setSignal(vehicleId, code, body)
    ))
  }
  const errors = segmentsOf("/_simulator/vehicles/:id/errors", path)
  if (errors !== undefined && method === "POST") {
    const vehicleId = errors[0]!
    return answer(
      Effect.flatMap(
        bodyOf(request, ErrorBody, "{type?, code?, description?, suggestedUserMessage?, resolution?, signals?}"),
        (body) => engine.injectVehicleError(vehicleId, body)
      ),
      201
    )
  }
  const error = segmentsOf("/_simulator/vehicles/:id/errors/:errorId", path)
  if (error !== undefined && method === "DELETE") {
    return answer(engine.resolveVehicleError(error[0]!, error[1]!))
  }
  if (path === "/_simulator/deliveries") {
    if (method === "GET") return Effect.map(engine.deliveries, (deliveries) => json({ deliveries: deliveries.map(entryJson) }))
    if (method === "DELETE") return Effect.as(engine.clearDeliveries, HttpServerResponse.empty({ status: 204 }))
  }
  return deliveryPath.test(path) ? notAllowed(method, path) : undefined
}
