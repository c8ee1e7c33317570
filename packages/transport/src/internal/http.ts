/**
 * @internal
 */
import { Effect, Option } from "effect"
import type { Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import type { HttpClient, UrlParams } from "effect/http"
import { logLevelConfig } from "../TransportConfig.ts"
import * as SdkLog from "./log.ts"
import type { NodeUndiciParts } from "./undici.ts"
import { layerLean } from "./undici.ts"

/**
 * The part of `@effect/platform-node/NodeHttpClient` the transport uses.
 *
 * @internal
 */
export interface NodeHttpClientModule extends Partial<NodeUndiciParts> {
  readonly layerUndici: Layer.Layer<HttpClient.HttpClient>
}

/**
 * Node itself (not Bun or Deno, whose `fetch` is native).
 *
 * @internal
 */
export const isNode = (): boolean => {
  const runtime = globalThis as { readonly process?: { readonly versions?: { readonly node?: unknown } } }
  return typeof runtime.process?.versions?.node === "string" && !("Bun" in globalThis) && !("Deno" in globalThis)
}

// A computed specifier: bundlers do not pull the Node-only module into other
// builds, and an application without this optional peer still type-checks.
const nodeHttpClient = "@effect/platform-node/NodeHttpClient"

/**
 * Imports `@effect/platform-node/NodeHttpClient` (an optional peer dependency).
 *
 * @internal
 */
export const loadNodeHttpClient = (): Promise<NodeHttpClientModule> =>
  import(/* webpackIgnore: true */ /* @vite-ignore */ nodeHttpClient)

/**
 * Undici on Node when `load` succeeds (the lean client of `./undici.ts` over
 * `NodeHttpClient`'s dispatcher when the module has its parts, else
 * `layerUndici`), else `FetchHttpClient.layer`
 * (logged at debug level when Node's could not be loaded, under
 * `CONNECTED_VEHICLE_LOG` when it is set and valid).
 *
 * @internal
 */
export const platformHttpClient = (
  onNode: boolean,
  load: () => Promise<NodeHttpClientModule>
): Effect.Effect<Layer.Layer<HttpClient.HttpClient>> =>
  onNode
    ? Effect.matchEffect(Effect.tryPromise(load), {
      onSuccess: (module) => Effect.succeed(leanOf(module) ?? module.layerUndici),
      onFailure: (error) =>
        Effect.flatMap(
          Effect.flatMap(Effect.option(logLevelConfig), (level) => SdkLog.current(Option.getOrUndefined(level))),
          (log) =>
            log.enabled("Debug")
              ? Effect.as(
                log.log("Debug", "@effect/platform-node cannot be loaded: using FetchHttpClient", { reason: String(error.cause) }),
                FetchHttpClient.layer
              )
              : Effect.succeed(FetchHttpClient.layer)
        )
    })
    : Effect.succeed(FetchHttpClient.layer)

const leanOf = (module: NodeHttpClientModule): Layer.Layer<HttpClient.HttpClient> | undefined =>
  module.Dispatcher !== undefined && module.layerDispatcher !== undefined && module.layerUndiciNoDispatcher !== undefined &&
    module.UndiciOptions !== undefined
    ? layerLean(module as NodeUndiciParts)
    : undefined

/**
 * The URL of a request with user info removed (query kept: no secret is ever
 * sent in a query string by this SDK).
 *
 * @internal
 */
export const withoutCredentials = (url: string, urlParams?: UrlParams.UrlParams): string => {
  try {
    const u = new URL(url)
    u.username = ""
    u.password = ""
    if (urlParams !== undefined) {
      for (const [key, value] of urlParams.params) {
        if (value !== undefined) u.searchParams.append(key, String(value))
      }
    }
    return u.toString()
  } catch {
    return url.replace(/\/\/[^@/]*@/, "//")
  }
}
