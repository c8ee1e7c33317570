/**
 * The Promise client's v3 methods, derived from the Effect services: every
 * paged service (`list`, `pages`, `stream`, and each other endpoint of its
 * table) through one generic adapter (the services of `V3.resources` and
 * their `endpoints`: a new service or endpoint needs no edit here nor in the
 * client's interface), every migrated read through one adapter.
 */
import { Effect, Stream } from "effect"
import type { Context } from "effect"
import type * as Transport from "@connected-vehicle/transport/Transport"
import type { UnitSystem } from "@connected-vehicle/schema/Legacy"
import type { CompatibilityPage } from "@connected-vehicle/schema/Compatibility"
import * as Compatibility from "@connected-vehicle/v3/Compatibility"
import * as Migration from "@connected-vehicle/v3/Migration"
import * as V3 from "@connected-vehicle/v3/V3"
import type { MigratedReading, MigrationClient, Plain, ResourceClients, V3Client } from "../Client.ts"
import type { ReadOptions, RequestOptions } from "../ClientOptions.ts"
import type { Services } from "../ConnectedVehicle.ts"
import type { Runner } from "./runner.ts"

/** A paged service, loosely: `list`, `pages`, `stream`, and one method per other endpoint of its table. */
type PagedService = Readonly<Record<string, (args: unknown, options?: Transport.CallOptions) => Effect.Effect<unknown, unknown> | Stream.Stream<unknown, unknown>>>

/** A service tag of `V3.resources`, with the table the service is derived from. */
interface ResourceTag {
  readonly endpoints: object
}

/**
 * A paged service as Promises and `AsyncIterable`s: `list`, `pages`,
 * `iterate` (its `stream`) from the table's `list`; every other endpoint of
 * its table (`get`, ...) as a method of its name.
 */
const resourceClient = (runner: Runner, tag: Context.Key<Services, PagedService> & ResourceTag) => {
  const service = Effect.service(tag)
  const call = (name: string) => (args: unknown, options?: RequestOptions) =>
    runner.call(options, (co) => Effect.flatMap(service, (s) => s[name]!(args, co) as Effect.Effect<unknown, unknown>))
  const iterable = (name: string) => (args: unknown, options?: RequestOptions) =>
    runner.iterable(options, (co) => Stream.unwrap(Effect.map(service, (s) => s[name]!(args, co) as Stream.Stream<unknown, unknown>)))
  // (`args` omitted reaches the service as `undefined`, which a list with optional arguments takes)
  const client: Record<string, unknown> = { list: call("list"), pages: iterable("pages"), iterate: iterable("stream") }
  for (const name of Object.keys(tag.endpoints)) if (name !== "list") client[name] = call(name)
  return client
}

/** Every service of `V3.resources` as its Promise client. */
const resources = (runner: Runner): ResourceClients<typeof V3.resources> =>
  Object.fromEntries(
    Object.entries(V3.resources).map(([name, tag]) => [name, resourceClient(runner, tag as never)])
  ) as never

type MigrationRead<A> = (
  target: Migration.Target,
  options?: Migration.ReadOptions
) => Effect.Effect<Migration.Reading<A>, Migration.ReadError, Services>

/** @internal */
export const makeV3 = (runner: Runner, defaultUnitSystem: UnitSystem | undefined): V3Client => {
  /** A migrated read, with the client's unit system unless the call names one. */
  const migrated = <A>(read: MigrationRead<A>) => (target: Migration.Target, options?: ReadOptions): Promise<MigratedReading<A>> =>
    runner.call(options, (co, given) => {
      const unitSystem = (given.unitSystem as UnitSystem | undefined) ?? defaultUnitSystem
      return read(target, unitSystem === undefined ? co : { ...co, unitSystem })
    })
  const migration: MigrationClient = {
    // one method per read of `Migration.reads`
    ...(Object.fromEntries(Object.entries(Migration.reads).map(([name, read]) => [name, migrated(read as MigrationRead<unknown>)])) as Omit<
      MigrationClient,
      "userIdOf"
    >),
    userIdOf: (vehicleId, options) => runner.run(options, (co) => Migration.userIdOf(vehicleId, co))
  }
  const compatibility = Effect.service(Compatibility.Compatibility)
  return {
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
