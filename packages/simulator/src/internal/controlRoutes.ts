/**
 * The control routes under `/_simulator` (loopback peers only): the request
 * log, reset, the fault script, and the routes of webhook deliveries.
 *
 * @internal
 */
import { Effect, Option, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import type { HttpServerRequest } from "effect/http"
import * as Delivery from "../Delivery.ts"
import type { Env } from "../Env.ts"
import { envelope } from "../Env.ts"
import type { Fault } from "../State.ts"
import { FAULT_RULE_LIMIT } from "../State.ts"
import { exactly } from "./deliveryRoutes.ts"
import { pathGlob, pathRefusal } from "./pathGlob.ts"
import { cutDetail } from "./controlBody.ts"
import { notAllowed } from "./controlPaths.ts"
import { parseFaultHeader } from "./faults.ts"
import { quoted } from "./oauthText.ts"
import { envelopeResponse } from "./responses.ts"
import type { Usage } from "./usage.ts"
import * as burstRoutes from "./burstRoutes.ts"
import * as usageRoutes from "./usageRoutes.ts"

export const isLoopback = (address: Option.Option<string>) =>
  Option.match(address, {
    onNone: () => true,
    onSome: (a) => a === "::1" || a.startsWith("127.") || a.startsWith("::ffff:127.")
  })

const ControlFaults = Schema.Struct({
  path: Schema.optionalKey(Schema.String),
  pathPattern: Schema.optionalKey(Schema.String),
  method: Schema.optionalKey(Schema.String),
  faults: Schema.Array(Schema.String)
})

/**
 * The control routes under `/_simulator` (not part of the service contract;
 * loopback peers only): `POST /_simulator/faults`, `GET` / `DELETE
 * /_simulator/requests`, `POST /_simulator/reset`, the usage routes
 * (`internal/usageRoutes`), the burst routes (`internal/burstRoutes`) and
 * the routes of webhook deliveries (`Delivery.control`). Another method on
 * one of their paths is a 405 whose `Allow` lists the path's methods
 * (`controlPaths`, the one table of them); a path none of them has a 404.
 */
export const control = (
  state: Env["Service"]["state"],
  request: HttpServerRequest.HttpServerRequest,
  path: string,
  deliveries: Env["Service"]["deliveries"],
  usage: Usage
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const bad = (detail: string) => Effect.succeed(envelopeResponse(400, envelope(400, detail)))
  const route = `${request.method} ${path}`
  switch (route) {
    case "GET /_simulator/requests": {
      const q = request.url.indexOf("?")
      const query = new URLSearchParams(q === -1 ? "" : request.url.slice(q + 1))
      const limit = query.get("limit")
      const once = query.getAll("limit").length <= 1
      if ([...query.keys()].some((key) => key !== "limit") || !once || (limit !== null && !/^[1-9]\d{0,8}$/.test(limit))) {
        return bad(`The only query parameter is limit, once, the newest entries to answer: a whole number of at least 1`)
      }
      return Effect.succeed(HttpServerResponse.jsonUnsafe({ requests: state.requests(limit === null ? undefined : Number(limit)) }))
    }
    case "DELETE /_simulator/requests":
      return Effect.sync(() => {
        state.resetLog()
        return HttpServerResponse.empty({ status: 204 })
      })
    case "POST /_simulator/reset":
      return Effect.sync(() => {
        state.reset()
        return HttpServerResponse.empty({ status: 204 })
      })
    case "POST /_simulator/faults":
      return request.json.pipe(
        Effect.flatMap((body) => Schema.decodeUnknownEffect(ControlFaults)(body, exactly)),
        Effect.matchEffect({
          onFailure: (error) =>
            bad(`Expected {"faults": ["status=500", ...], "path"?, "pathPattern"?, "method"?}: ${cutDetail(String((error as any)?.message ?? error))}`),
          onSuccess: (body) => {
            if (body.faults.length === 0) return bad(`faults: give at least one fault, e.g. ["status=500"]`)
            const runs: Array<{ readonly fault: Fault; readonly times: number }> = []
            let queued = 0
            for (const [i, text] of body.faults.entries()) {
              const parsed = parseFaultHeader(text)
              // the reason shows the value the request sent cut short (`oauthText.quoted`)
              if (typeof parsed === "string") return bad(`Invalid fault faults[${i}] ${quoted(text)}: ${parsed}`)
              runs.push({ fault: parsed.fault, times: parsed.times ?? 1 })
              queued += parsed.times ?? 1
            }
            if (body.path !== undefined && body.pathPattern !== undefined) {
              return bad(`Give either path (a path or its prefix) or pathPattern (a glob), not both`)
            }
            const refused = body.path === undefined ? undefined : pathRefusal(body.path)
            if (refused !== undefined) return bad(refused)
            if (body.method !== undefined && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/.test(body.method)) {
              return bad(`method is an HTTP method (a token, e.g. "GET"), got ${quoted(body.method)}`)
            }
            const pattern = body.pathPattern === undefined ? undefined : pathGlob(body.pathPattern)
            if (typeof pattern === "string") return bad(pattern)
            if (!state.injectRuns(pattern ?? body.path, body.method, runs)) {
              return Effect.succeed(envelopeResponse(
                409,
                envelope(409, `${FAULT_RULE_LIMIT} fault rules are pending: let requests consume them, or POST /_simulator/reset`)
              ))
            }
            return Effect.succeed(HttpServerResponse.jsonUnsafe({ queued }, { status: 201 }))
          }
        })
      )
    default:
      return usageRoutes.control(usage, request, path) ?? burstRoutes.control(deliveries, request, path) ??
        Delivery.control(deliveries, request, path) ?? notAllowed(request.method, path) ??
        Effect.succeed(envelopeResponse(404, envelope(404, `No control route ${request.method} ${quoted(path)}`)))
  }
}
