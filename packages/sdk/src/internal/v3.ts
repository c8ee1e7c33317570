/**
 * The Promise client's v3 methods, derived from the Effect services: every
 * paged service (`list`, `pages`, `stream`, `get`) through one generic
 * adapter (the services of `V3.resources`: a new one needs no edit here nor
 * in the client's interface), every migrated read through one adapter.
 */
import { Effect, Stream } from "effect"
import type { Context } from "effect"
import type * as Transport from "@connected-vehicle/transport/Transport"
import type { UnitSystem } from "@connected-vehicle/schema/Legacy"
import type { CompatibilityPage } from "@connected-vehicle/schema/Compatibility"
import * as Compatibility from "@connected-vehicle/v3/Compatibility"
import * as Migration from "@connected-vehicle/v3/Migration"
import * as Signals from "@connected-vehicle/v3/Signals"
import * as V3 from "@connected-vehicle/v3/V3"
import type { MigratedReading, MigrationClient, PagedResource, Plain, ResourceClients, V3Client } from "../Client.ts"
import type { ReadOptions, RequestOptions } from "../ClientOptions.ts"
import type { Services } from "../ConnectedVehicle.ts"
import type { Runner } from "./runner.ts"

/** The shape of a paged service, `Resource`'s or `Signals`' (whose list arguments are required). */
interface PagedService<Args, Page, Item, Get, Response> {
  readonly list: (args: Args, options?: Transport.CallOptions) => Effect.Effect<Page, unknown>
  readonly pages: (args: Args, options?: Transport.CallOptions) => Stream.Stream<Page, unknown>
  readonly stream: (args: Args, options?: Transport.CallOptions) => Stream.Stream<Item, unknown>
  readonly get: (id: Get, options?: Transport.CallOptions) => Effect.Effect<Response, unknown>
}

/** A paged service as Promises and `AsyncIterable`s (`stream` is `iterate`). */
const paged = <Args, Page, Item, Get, Response>(
  runner: Runner,
  tag: Context.Key<Services, PagedService<Args, Page, Item, Get, Response>>
): PagedResource<Args, Page, Item, Get, Response> => {
  const service = Effect.service(tag)
  // (`args` omitted reaches the service as `undefined`, which a list with optional arguments takes)
  const client = {
    list: (args: Args, options?: RequestOptions) => runner.call(options, (co) => Effect.flatMap(service, (s) => s.list(args, co))),
    pages: (args: Args, options?: RequestOptions) =>
      runner.iterable(options, (co) => Stream.unwrap(Effect.map(service, (s) => s.pages(args, co)))),
    iterate: (args: Args, options?: RequestOptions) =>
      runner.iterable(options, (co) => Stream.unwrap(Effect.map(service, (s) => s.stream(args, co)))),
    get: (id: Get, options?: RequestOptions) => runner.call(options, (co) => Effect.flatMap(service, (s) => s.get(id, co)))
  }
  return client as PagedResource<Args, Page, Item, Get, Response>
}

/** Every service of `V3.resources` as its Promise client. */
const resources = (runner: Runner): ResourceClients<typeof V3.resources> =>
  Object.fromEntries(
    Object.entries(V3.resources).map(([name, tag]) => [name, paged(runner, tag as Context.Key<Services, PagedService<unknown, unknown, unknown, unknown, unknown>>)])
  ) as never

type MigrationRead<A> = (
  target: Migration.Target,
  options?: Migration.ReadOptions
) => Effect.Effect<Migration.Reading<A>, Migration.ReadError, Services>

/** @internal */
export const makeV3 = (runner: Runner, defaultUnitSystem: UnitSystem | undefined): V3Client => {
  /** A migrated read, with the client's unit system unless the call names one. */
  const migrated = <A>(read: MigrationRead<A>) => (target: Migration.Target, options?: ReadOptions): Promise<MigratedReading<A>> =>
    runner.call(options, (co) => {
      const unitSystem = options?.unitSystem ?? defaultUnitSystem
      return read(target, unitSystem === undefined ? co : { ...co, unitSystem })
    })
  const migration: MigrationClient = {
    odometer: migrated(Migration.odometer),
    location: migrated(Migration.location),
    vin: migrated(Migration.vin),
    engineOil: migrated(Migration.engineOil),
    tirePressure: migrated(Migration.tirePressure),
    userIdOf: (vehicleId, options) => runner.run(options, (co) => Migration.userIdOf(vehicleId, co))
  }
  const compatibility = Effect.service(Compatibility.Compatibility)
  return {
    signals: paged(runner, Signals.Signals),
    ...resources(runner),
    migration,
    compatibility: {
      // the listing is cached by the service: each caller gets a copy of its own (no `DateTime` in it)
      list: (filters, options) =>
        runner.run(options, (co) => Effect.flatMap(compatibility, (s) => s.list(filters, co)), (page): Plain<CompatibilityPage> => structuredClone(page)),
      invalidate: () => runner.run(undefined, () => Effect.flatMap(compatibility, (s) => s.invalidate))
    }
  }
}
