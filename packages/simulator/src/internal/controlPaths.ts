/**
 * The one table of the control paths under `/_simulator` (loopback only):
 * each path, the methods it takes (another method is a 405 with `Allow`) and
 * those of them that read a JSON body (`controlBody`). The routes themselves
 * are answered by `controlRoutes`, `usageRoutes`, `burstRoutes` and
 * `deliveryRoutes`.
 *
 * @internal
 */
import { Effect } from "effect"
import type { HttpServerResponse } from "effect/http"
import { envelope } from "../Env.ts"
import { envelopeResponse } from "./responses.ts"

interface ControlPath {
  /** The path as the README names it, a `:name` segment any one segment. */
  readonly route: string
  readonly methods: ReadonlyArray<string>
  /** The methods of {@link methods} that read a JSON body. */
  readonly json: ReadonlyArray<string>
}

const controlPaths: ReadonlyArray<ControlPath> = [
  { route: "/_simulator/requests", methods: ["GET", "DELETE"], json: [] },
  { route: "/_simulator/reset", methods: ["POST"], json: [] },
  { route: "/_simulator/faults", methods: ["POST"], json: ["POST"] },
  { route: "/_simulator/usage", methods: ["GET", "DELETE"], json: [] },
  { route: "/_simulator/rate-limits", methods: ["GET", "PUT"], json: ["PUT"] },
  { route: "/_simulator/bursts", methods: ["POST"], json: ["POST"] },
  { route: "/_simulator/bursts/current", methods: ["GET", "DELETE"], json: [] },
  { route: "/_simulator/bursts/current/truth", methods: ["GET"], json: [] },
  { route: "/_simulator/webhooks", methods: ["POST"], json: ["POST"] },
  { route: "/_simulator/webhooks/:id", methods: ["POST", "DELETE"], json: ["POST"] },
  { route: "/_simulator/subscriptions", methods: ["POST"], json: ["POST"] },
  { route: "/_simulator/vehicles/:id/signals/:code", methods: ["POST"], json: ["POST"] },
  { route: "/_simulator/vehicles/:id/errors", methods: ["POST"], json: ["POST"] },
  { route: "/_simulator/vehicles/:id/errors/:errorId", methods: ["DELETE"], json: [] },
  { route: "/_simulator/deliveries", methods: ["GET", "DELETE"], json: [] }
]

/** The pattern of a route: each `:name` segment one segment, captured. */
const patternOf = (route: string): RegExp => new RegExp(`^${route.replace(/:[A-Za-z]+/g, "([^/]+)")}$`)

const patterns: ReadonlyArray<readonly [RegExp, ControlPath]> = controlPaths.map((p) => [patternOf(p.route), p])

const find = (path: string): ControlPath | undefined => patterns.find(([pattern]) => pattern.test(path))?.[1]

/**
 * The `:name` segments of `path` when it is the control path `route` (one of
 * the table's), in order; else undefined.
 */
export const segmentsOf = (route: string, path: string): ReadonlyArray<string> | undefined => {
  const match = patterns.find(([, p]) => p.route === route)?.[0].exec(path)
  return match === null || match === undefined ? undefined : match.slice(1)
}

/** Whether the control route reads a JSON body. */
export const takesJsonBody = (method: string, path: string): boolean => find(path)?.json.includes(method) ?? false

/**
 * The 405 of a control path asked with a method it does not take (its
 * `Allow` the path's methods; the detail names the path as the table does,
 * never the request's own spelling), or undefined for a path that is none of
 * the table's.
 */
export const notAllowed = (method: string, path: string): Effect.Effect<HttpServerResponse.HttpServerResponse> | undefined => {
  const known = find(path)
  if (known === undefined) return undefined
  const allow = known.methods.join(", ")
  const detail = `Method ${method} is not allowed on ${known.route}; allowed: ${allow}`
  return Effect.succeed(envelopeResponse(405, envelope(405, detail), { allow }))
}
