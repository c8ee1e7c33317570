/**
 * The Promise client's legacy v2.0 methods: sign-in (consent URL, code
 * exchange, a token of the application's, sign-out) and the reads of the
 * Effect `Vehicles` service, each read of its table (`Vehicles.reads`)
 * through one adapter.
 */
import { Effect, Result, Stream } from "effect"
import * as Consent from "@connected-vehicle/auth/Consent"
import * as Session from "@connected-vehicle/auth/Session"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import type * as Batch from "@connected-vehicle/legacy-v2/Batch"
import type * as LegacyReading from "@connected-vehicle/legacy-v2/Reading"
import * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
import { LegacyEndpoints } from "@connected-vehicle/schema/Legacy"
import type { LegacyPath } from "@connected-vehicle/schema/Legacy"
import type * as Transport from "@connected-vehicle/transport/Transport"
import { BatchDeprecation, type BatchEntry, type BatchResult, type LegacyClient, type Reading } from "../Client.ts"
import type { ReadOptions } from "../ClientOptions.ts"
import { fromEffectError, InvalidArgumentError } from "../ClientError.ts"
import type { Settings } from "./layer.ts"
import type { GivenOptions } from "./options.ts"
import { invalid, toToken, unreadable } from "./options.ts"
import { plain } from "./plain.ts"
import type { Runner } from "./runner.ts"

/** The Effect read options of the client's: `unitSystem` and the call's options. */
// the unit system as the runner read it (once) with the call options
const readOptions = (co: Transport.CallOptions | undefined, given: GivenOptions): Vehicles.ReadOptions | undefined =>
  given.unitSystem === undefined ? co : { ...co, unitSystem: given.unitSystem as ReadOptions["unitSystem"] }

/**
 * The Promise result of a batch: one entry per requested path (the keys of
 * the Effect result that are legacy paths), and the batch's deprecation
 * headers, `Date`s, under the `BatchDeprecation` symbol, so that walking the
 * entries finds the entries only.
 */
const toBatchResult = <P extends LegacyPath>(result: Batch.BatchResult<P>): BatchResult<P> => {
  const out: Record<string | symbol, unknown> = {}
  for (const [path, entry] of Object.entries(result) as Array<[string, Batch.Entry<LegacyPath>]>) {
    if (!Object.hasOwn(LegacyEndpoints, path)) continue
    out[path] = Result.isSuccess(entry)
      ? { ok: true, reading: plain(entry.success) as Reading<unknown> } satisfies BatchEntry<unknown>
      : { ok: false, error: fromEffectError(entry.failure) } satisfies BatchEntry<unknown>
  }
  if (result.deprecation !== undefined) out[BatchDeprecation] = plain(result.deprecation)
  return out as BatchResult<P>
}

type Read = (vehicleId: string, options?: Vehicles.ReadOptions) => Effect.Effect<LegacyReading.Reading<unknown>, Vehicles.ReadError>

type ReadName = keyof typeof Vehicles.Vehicles.reads

/** @internal */
export const makeLegacy = (runner: Runner, settings: Settings): LegacyClient => {
  const { redirectUri, userKey } = settings
  const vehicles = Effect.service(Vehicles.Vehicles)
  const tokens = Effect.service(TokenStore.TokenStore)
  const read = (name: ReadName) => (vehicleId: string, options?: ReadOptions): Promise<Reading<unknown>> =>
    runner.call(options, (co, given) => Effect.flatMap(vehicles, (s) => (s[name] as Read)(vehicleId, readOptions(co, given))))
  // one method per read of the service
  const reads = Object.fromEntries(Object.keys(Vehicles.Vehicles.reads).map((name) => [name, read(name as ReadName)])) as Pick<LegacyClient, ReadName>
  return {
    authorizationUrl: (consent) => runner.run(undefined, () => Consent.make(consent)),
    login: (input) =>
      runner.run<void, unknown>(undefined, () => {
        let code: unknown, given: unknown
        try {
          ;({ code, redirectUri: given } = typeof input === "object" && input !== null ? input : { code: undefined })
        } catch {
          return Effect.fail(unreadable("arguments"))
        }
        if (typeof code !== "string" || code.length === 0) {
          return Effect.fail(invalid("code", "Expected the non-empty code of the consent redirect"))
        }
        const uri = given ?? redirectUri
        if (uri === undefined) return Effect.fail(invalid("redirectUri", "Expected the redirect URI of the consent (or the client's redirectUri)"))
        return Effect.asVoid(Session.login(userKey, { code, redirectUri: uri as string }))
      }),
    setUserToken: (input) =>
      runner.run<void, unknown>(undefined, () => {
        // (toToken reads the caller's token once, its unreadable fields its own error)
        const token = toToken(input, Date.now())
        if (token instanceof InvalidArgumentError) return Effect.fail(token)
        return Effect.flatMap(tokens, (s) => s.set(userKey, token))
      }),
    logout: () => runner.run(undefined, () => Effect.flatMap(tokens, (s) => s.remove(userKey))),
    list: (args, options) => runner.call(options, (co) => Effect.flatMap(vehicles, (s) => s.list(args, co))),
    iterate: (args, options) => runner.iterable(options, (co) => Stream.unwrap(Effect.map(vehicles, (s) => s.stream(args, co)))),
    ...reads,
    batch: (vehicleId, paths, options) =>
      runner.run(options, (co, given) => Effect.flatMap(vehicles, (s) => Effect.map(s.batch(vehicleId, paths, readOptions(co, given)), toBatchResult)))
  }
}
