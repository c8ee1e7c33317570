/**
 * The control actions of a delivery engine: create and change webhooks,
 * subscribe vehicles, set readings, inject and resolve vehicle errors. Every
 * input is checked first; a refusal is a `WebhookControlError`.
 *
 * @internal
 */
import type { VehicleErrorEntry } from "@connected-vehicle/schema/WebhookEvent"
import { EventSignalBody } from "@connected-vehicle/schema/WebhookEvent"
import { SignalBody } from "@connected-vehicle/schema/Signal"
import { Effect, Redacted, Schema } from "effect"
import { randomUUID } from "node:crypto"
import type { SignalDefinition } from "../Data.ts"
import { readings, signalBody, signalCatalog } from "../Data.ts"
import type {
  SubscriptionInput,
  SubscriptionView,
  VehicleErrorInput,
  WebhookInput,
  WebhookPatch,
  WebhookView
} from "../DeliveryModels.ts"
import type { Engine, SubscriptionRecord, WebhookRecord } from "./deliveryEngine.ts"
import { deliverable, iso, newId, ref } from "./deliveryEngine.ts"
import { forbiddenIn, sendError, sendFirstDeliveries, sendState, verify } from "./deliveryEvents.ts"
import { quoted } from "./oauthText.ts"
import { cutDetail } from "./controlBody.ts"
import {
  CALLBACK_URI_LIMIT,
  ERROR_FIELD_LIMITS,
  fail,
  secretIssue,
  SIGNAL_BODIES_LIMIT,
  SIGNAL_BODY_LIMIT,
  WebhookControlError
} from "./deliveryPolicy.ts"

const catalog = new Map(signalCatalog.map((s) => [s.code, s]))

const signalsOf = (field: string, codes: ReadonlyArray<string>, atLeastOne: boolean) => {
  if (atLeastOne && codes.length === 0) return fail(400, `${field} must name at least one signal code`)
  const out: Array<SignalDefinition> = []
  for (const code of codes) {
    const definition = catalog.get(code.toLowerCase())
    if (definition === undefined) {
      return fail(400, `${field}: unknown signal code ${quoted(code)}; known: ${[...catalog.keys()].join(", ")}`)
    }
    if (!out.includes(definition)) out.push(definition)
  }
  return Effect.succeed(out)
}

const callbackOf = (field: string, uri: string) => {
  if (uri.length > CALLBACK_URI_LIMIT) return fail(400, `${field} is at most ${CALLBACK_URI_LIMIT} characters, got ${uri.length}`)
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return fail(400, `${field} must be an absolute http or https URL, got ${quoted(uri)}`)
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username !== "" || url.password !== "") {
    return fail(400, `${field} must be an absolute http or https URL without credentials`)
  }
  // Node's http.request takes port 0 for "the scheme's default": the attempts would go to port 80 or 443
  if (url.port === "0") return fail(400, `${field} must not name port 0 (no receiver listens there): give the receiver's port`)
  // a fragment is never sent: `#` (even an empty fragment) would only make two callbacks of one URL
  if (url.href.includes("#")) return fail(400, `${field} must not have a fragment (#...)`)
  if (url.href.length > CALLBACK_URI_LIMIT) {
    return fail(400, `${field} is at most ${CALLBACK_URI_LIMIT} characters percent-encoded, got ${url.href.length}`)
  }
  return Effect.succeed(url.href)
}

/** A webhook's own secret, checked (never quoted). */
const secretOf = (secret: Redacted.Redacted<string> | string) => {
  const key = Redacted.isRedacted(secret) ? secret : Redacted.make(secret, { label: "webhook secret" })
  const issue = secretIssue(Redacted.value(key))
  return issue === undefined ? Effect.succeed(key) : fail(400, `secret ${issue}`)
}

const nameOf = (name: string) =>
  name.trim() === "" || name.length > 200 ? fail(400, "name must be 1 to 200 characters") : Effect.succeed(name)

const viewOf = (w: WebhookRecord): WebhookView => ({
  id: w.id,
  name: w.name,
  callbackUri: w.callbackUri,
  errorCallbackUri: w.errorCallbackUri === "" ? null : w.errorCallbackUri,
  triggers: w.triggers.map((s) => s.code),
  data: w.data.map((s) => s.code),
  isEnabled: w.isEnabled,
  autoSubscribe: w.autoSubscribe,
  createdAt: iso(w.createdAt),
  verification: w.verification
})

const findWebhook = (engine: Engine, id: string) => {
  const w = engine.webhooks.find((w) => w.id === id.toLowerCase())
  if (w !== undefined) return Effect.succeed(w)
  return engine.data.webhookIndex(id.toLowerCase()) !== -1
    ? fail(400, `Webhook ${quoted(id)} is a seeded one: its callbacks are fictional, so it gets no deliveries; create one with POST /_simulator/webhooks`)
    : fail(404, `No webhook with id ${quoted(id)}`)
}

const vehicleOf = (engine: Engine, vehicleId: string) => {
  const index = engine.data.vehicleIndex(vehicleId.toLowerCase())
  return index === -1 ? fail(404, `No vehicle with id ${quoted(vehicleId)}`) : Effect.succeed(engine.data.vehicle(index))
}

/** Creates a webhook and waits for its `VERIFY` handshake. */
export const createWebhook = (engine: Engine, input: WebhookInput) =>
  Effect.gen(function*() {
    const name = yield* nameOf(input.name)
    const callbackUri = yield* callbackOf("callbackUri", input.callbackUri)
    const errorCallbackUri = input.errorCallbackUri === undefined || input.errorCallbackUri === ""
      ? ""
      : yield* callbackOf("errorCallbackUri", input.errorCallbackUri)
    const triggers = yield* signalsOf("triggers", input.triggers, true)
    const dataSignals = yield* signalsOf("data", input.data, false)
    const key = yield* secretOf(input.secret ?? engine.secret)
    if (engine.webhooks.length >= engine.webhookLimit) {
      return yield* fail(
        409,
        `${engine.webhooks.length} webhooks were created, the simulator's limit (option controlLimits.webhooks); POST /_simulator/reset forgets them`
      )
    }
    const w: WebhookRecord = {
      id: randomUUID(),
      name,
      callbackUri,
      errorCallbackUri,
      isEnabled: input.isEnabled ?? true,
      autoSubscribe: input.autoSubscribe ?? false,
      triggers,
      data: dataSignals,
      createdAt: engine.now(),
      secret: key,
      verification: "pending",
      handshakes: 0,
      deleted: false,
      waiting: new Set()
    }
    engine.webhooks.unshift(w)
    yield* verify(engine, w)
    return viewOf(w)
  })

/**
 * Changes a created webhook; a new `callbackUri`, or the same one of a webhook
 * whose verification has not succeeded, is verified again (awaited), a new
 * `secret` signs the next attempts.
 */
export const updateWebhook = (engine: Engine, webhookId: string, patch: WebhookPatch) =>
  Effect.gen(function*() {
    const w = yield* findWebhook(engine, webhookId)
    const name = patch.name === undefined ? w.name : yield* nameOf(patch.name)
    const callbackUri = patch.callbackUri === undefined ? w.callbackUri : yield* callbackOf("callbackUri", patch.callbackUri)
    const errorCallbackUri = patch.errorCallbackUri === undefined
      ? w.errorCallbackUri
      : patch.errorCallbackUri === null || patch.errorCallbackUri === ""
      ? ""
      : yield* callbackOf("errorCallbackUri", patch.errorCallbackUri)
    const secret = patch.secret === undefined ? w.secret : yield* secretOf(patch.secret)
    // a callback named again while its verification has not succeeded (failed, or still pending) is verified again
    const changed = callbackUri !== w.callbackUri || (patch.callbackUri !== undefined && w.verification !== "succeeded")
    const enabled = patch.isEnabled === true && !w.isEnabled
    w.name = name
    w.callbackUri = callbackUri
    w.errorCallbackUri = errorCallbackUri
    w.isEnabled = patch.isEnabled ?? w.isEnabled
    // the next attempts, retries of earlier events included, are signed with it
    w.secret = secret
    // from now on, until its VERIFY is answered, no attempt goes to the new callback
    if (changed) w.verification = "pending"
    if (changed) yield* verify(engine, w)
    else if (enabled) yield* sendFirstDeliveries(engine, w)
    return viewOf(w)
  })

/**
 * Deletes a created webhook and its subscriptions: the attempts of its
 * deliveries still due (retries waiting, or queued) are not sent, each logged
 * `dropped` ("not sent: the webhook was deleted"); those waiting for a retry
 * are logged at once.
 */
export const deleteWebhook = (engine: Engine, webhookId: string) =>
  Effect.gen(function*() {
    const w = yield* findWebhook(engine, webhookId)
    w.deleted = true
    engine.webhooks = engine.webhooks.filter((other) => other !== w)
    engine.subscriptions = engine.subscriptions.filter((s) => s.webhookId !== w.id)
    for (const drop of [...w.waiting]) drop()
  })

/** Subscribes a connected vehicle to a created webhook; sends its `FIRST_DELIVERY`. */
export const subscribe = (engine: Engine, input: SubscriptionInput) =>
  Effect.gen(function*() {
    const { data } = engine
    const w = yield* findWebhook(engine, input.webhookId)
    const v = yield* vehicleOf(engine, input.vehicleId)
    const userIndex = data.userIndex(input.userId.toLowerCase())
    if (userIndex === -1) return yield* fail(404, `No user with id ${quoted(input.userId)}`)
    if (v.index >= data.connectionCount || data.connectionUser[v.index] !== userIndex) {
      return yield* fail(400, `User ${quoted(input.userId)} has no connection to vehicle ${quoted(input.vehicleId)}`)
    }
    if (engine.subscriptions.some((s) => s.webhookId === w.id && s.vehicleIndex === v.index)) {
      return yield* fail(409, `Vehicle ${quoted(input.vehicleId)} is already subscribed to webhook ${w.id}`)
    }
    const s: SubscriptionRecord = {
      id: randomUUID(),
      webhookId: w.id,
      userIndex,
      vehicleIndex: v.index,
      createdAt: engine.now(),
      firstDeliveryEventId: undefined
    }
    engine.subscriptions.unshift(s)
    yield* sendFirstDeliveries(engine, w)
    const view: SubscriptionView = {
      id: s.id,
      webhookId: w.id,
      userId: data.user(userIndex).id,
      vehicleId: v.id,
      createdAt: iso(s.createdAt),
      firstDeliveryEventId: s.firstDeliveryEventId
    }
    return view
  })

/** Levels of objects and arrays a signal body may nest (a real one has one or two). */
export const MAX_SIGNAL_BODY_DEPTH = 64

/** Whether a JSON value nests objects or arrays more than `levels` deep (recursing at most `levels` calls). */
const nestedDeeper = (value: unknown, levels: number): boolean =>
  typeof value === "object" && value !== null &&
  (levels === 0 || Object.values(value).some((child) => nestedDeeper(child, levels - 1)))

const decodeBody = Schema.decodeUnknownEffect(EventSignalBody)
const encodeWire = (body: unknown) => Effect.flatMap(Schema.decodeUnknownEffect(SignalBody)(body), Schema.encodeEffect(SignalBody))

/**
 * Sets the body of a signal of a vehicle; a change sends a `VEHICLE_STATE` to
 * each webhook it triggers, unless the vehicle's connection may not read the
 * signal (then no event: the app would learn that a signal it may not read
 * changed).
 */
export const setSignal = (engine: Engine, vehicleId: string, code: string, body: unknown) =>
  Effect.gen(function*() {
    const v = yield* vehicleOf(engine, vehicleId)
    const definition = v.model.signals.find((s) => s.code === code.toLowerCase())
    if (definition === undefined) return yield* fail(404, `Vehicle ${v.id} has no signal ${quoted(code)}`)
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return yield* fail(400, "The body of a signal is a JSON object, e.g. {\"unit\": \"km\", \"value\": 12345}")
    }
    // the body is stored, served and delivered: serialising one nested thousands deep overflows the stack
    if (nestedDeeper(body, MAX_SIGNAL_BODY_DEPTH)) {
      return yield* fail(400, `The body of a signal nests objects and arrays at most ${MAX_SIGNAL_BODY_DEPTH} levels deep`)
    }
    const key = `${v.index} ${definition.code}`
    const size = JSON.stringify(body).length
    if (size > SIGNAL_BODY_LIMIT) {
      return yield* fail(400, `The body of a signal is at most ${SIGNAL_BODY_LIMIT} characters of JSON, got ${size}`)
    }
    const total = engine.signalChars - (engine.signalSizes.get(key) ?? 0) + size
    if (total > SIGNAL_BODIES_LIMIT) {
      return yield* fail(
        409,
        `The signal bodies set would take ${total} characters of JSON, over the simulator's ${SIGNAL_BODIES_LIMIT}; POST /_simulator/reset forgets them`
      )
    }
    const invalid = (error: { readonly message: string }) =>
      new WebhookControlError({ status: 400, detail: `Invalid signal body: ${cutDetail(error.message)}` })
    const decoded = yield* Effect.mapError(decodeBody(body), invalid)
    // the REST endpoints serve it too: it must be a v3 signal body (`value`, when present, a JSON value)
    const wire = yield* Effect.mapError(encodeWire(body), invalid)
    const at = engine.now()
    const previous = engine.overrides.get(key)?.body ?? signalBody(definition.code, readings(engine.seed, v, at), v)
    const changed = JSON.stringify(previous) !== JSON.stringify(decoded)
    engine.overrides.set(key, { body: decoded, wire, at })
    engine.signalSizes.set(key, size)
    engine.signalChars = total
    engine.readingsVersion++
    // a signal the connection may not read triggers nothing: the app would learn it changed
    if (!changed || forbiddenIn(engine, v, definition) !== undefined) return { changed, eventIds: [] }
    const eventIds: Array<string> = []
    for (const s of engine.subscriptions) {
      if (s.vehicleIndex !== v.index) continue
      const w = engine.webhooks.find((w) => w.id === s.webhookId)
      if (w === undefined || !deliverable(w) || !w.triggers.includes(definition)) continue
      eventIds.push(yield* sendState(engine, w, s, [ref(definition)]))
    }
    return { changed, eventIds }
  })

/** Injects an error on a vehicle: a `VEHICLE_ERROR` (state `ERROR`) to each subscribed webhook. */
export const injectVehicleError = (engine: Engine, vehicleId: string, input: VehicleErrorInput) =>
  Effect.gen(function*() {
    const v = yield* vehicleOf(engine, vehicleId)
    for (const field of Object.keys(ERROR_FIELD_LIMITS) as Array<keyof typeof ERROR_FIELD_LIMITS>) {
      const value = input[field]
      if (value !== undefined && value.length > ERROR_FIELD_LIMITS[field]) {
        return yield* fail(400, `${field} is at most ${ERROR_FIELD_LIMITS[field]} characters, got ${value.length}`)
      }
    }
    const signals = input.signals === undefined ? undefined : yield* signalsOf("signals", input.signals, false)
    if (engine.errors.size >= engine.errorLimit) {
      return yield* fail(
        409,
        `${engine.errors.size} vehicle errors are open, the simulator's limit (option controlLimits.vehicleErrors); resolve one (DELETE /_simulator/vehicles/{id}/errors/{errorId}) or POST /_simulator/reset`
      )
    }
    const errorId = newId("err")
    const entry: Omit<VehicleErrorEntry, "state"> = {
      type: input.type ?? "VEHICLE_STATE",
      code: input.code ?? "ASLEEP",
      description: input.description ?? "The vehicle did not answer: it is asleep or out of network coverage.",
      suggestedUserMessage: input.suggestedUserMessage ?? "Your vehicle is not reachable right now; we will try again later.",
      resolution: { type: (input.resolution ?? "RETRY_LATER") as NonNullable<VehicleErrorEntry["resolution"]>["type"] },
      ...(signals === undefined ? {} : { signals: signals.map(ref) })
    }
    engine.errors.set(errorId, { vehicleIndex: v.index, entry })
    const eventIds = yield* sendError(engine, v.index, { ...entry, state: "ERROR" })
    return { errorId, eventIds }
  })

/** Resolves an injected error: a `VEHICLE_ERROR` with state `RESOLVED`. */
export const resolveVehicleError = (engine: Engine, vehicleId: string, errorId: string) =>
  Effect.gen(function*() {
    const v = yield* vehicleOf(engine, vehicleId)
    const injected = engine.errors.get(errorId)
    if (injected === undefined || injected.vehicleIndex !== v.index) {
      return yield* fail(404, `No open error ${quoted(errorId)} on vehicle ${quoted(vehicleId)}`)
    }
    engine.errors.delete(errorId)
    return { eventIds: yield* sendError(engine, v.index, { ...injected.entry, state: "RESOLVED" }) }
  })
