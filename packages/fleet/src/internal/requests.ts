/**
 * What a request costs, read from the request itself: which vehicle it names
 * (`/v3/vehicles/{id}/...`, `/v2.0/vehicles/{id}/...`), how many requests it
 * counts as (each entry of a legacy batch), and whether the service meters
 * it at all (only requests with a bearer token: not the token endpoint); and
 * which key a 429 holds.
 */
import { Option, Schema } from "effect"
import type { HttpClientRequest } from "effect/http"
import { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"

const vehiclePath = /\/vehicles\/([^/?#]+)/

/** The vehicle id in the request's path, if it names one. */
export const vehicleOf = (request: HttpClientRequest.HttpClientRequest): string | undefined => {
  const match = vehiclePath.exec(request.url)
  if (match === null) return undefined
  try {
    return decodeURIComponent(match[1]!)
  } catch {
    return match[1]
  }
}

const decoder = new TextDecoder()

/** How many requests the service counts: the entries of a legacy batch, else 1. */
export const entriesOf = (request: HttpClientRequest.HttpClientRequest): number => {
  if (request.method !== "POST" || !/\/batch\/?(?:[?#]|$)/.test(request.url) || request.body._tag !== "Uint8Array") return 1
  try {
    const parsed: unknown = JSON.parse(decoder.decode(request.body.body))
    const requests = typeof parsed === "object" && parsed !== null && "requests" in parsed ? parsed.requests : undefined
    return Array.isArray(requests) && requests.length > 0 ? requests.length : 1
  } catch {
    return 1
  }
}

/**
 * Whether the service counts the request against the limits: it carries a
 * bearer token, or will (the transport admits a call's request before it
 * sets its bearer); not one with an authorization of its own (the token
 * endpoint's).
 */
export const isMetered = (request: HttpClientRequest.HttpClientRequest): boolean => {
  const authorization = request.headers["authorization"]
  return authorization === undefined || /^bearer /i.test(authorization)
}

const decodeEnvelope = Schema.decodeUnknownOption(Schema.fromJsonString(ErrorEnvelope))

/**
 * The key a 429 holds: the application when the request names no vehicle or
 * the service's error envelope has an error whose `code` is
 * `APPLICATION_RATE_LIMITED`, else the request's vehicle. A body that is not
 * an error envelope holds the vehicle (the narrower key: a wrong guess costs
 * one more 429, never a fleet-wide stop).
 */
export const scopeOf = (vehicle: string | undefined, body: string): string => {
  if (vehicle === undefined) return "application"
  const envelope = decodeEnvelope(body)
  return Option.isSome(envelope) && envelope.value.errors.some((error) => error.code === "APPLICATION_RATE_LIMITED")
    ? "application"
    : `vehicle:${vehicle}`
}
