/**
 * Where the CLI talks to: the embedded simulator (default: started in-process
 * on 127.0.0.1 with a free port) or another server given by `--target` /
 * environment variables (another simulator or a real deployment).
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer, Option } from "effect"
import type { Redacted } from "effect"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Transport from "@connected-vehicle/transport/Transport"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import { SampleError } from "./SampleError.ts"

/**
 * The server the CLI talks to and the application credential it uses there.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Target } from "@connected-vehicle/sample/Target"
 *
 * const where = Effect.map(Target.asEffect(), (target) => target.label)
 * ```
 * @since 0.1.0
 */
export class Target extends Context.Service<Target, {
  /** `embedded simulator at http://127.0.0.1:PORT` or the target origin. */
  readonly label: string
  readonly embedded: boolean
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** The running embedded simulator (undefined for a remote target). */
  readonly simulator: Simulator.Simulator["Service"] | undefined
}>()("@connected-vehicle/sample/Target") {}

/**
 * What the command line says about the target (each part may come from an
 * environment variable instead).
 *
 * @since 0.1.0
 */
export interface Options {
  readonly target: Option.Option<string>
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted<string>>
}

/**
 * Per-call policies of the CLI: short timeouts, few retries, so that a failing
 * server gives a clear error quickly.
 *
 * @since 0.1.0
 */
export const policies = {
  timeoutMillis: 15_000,
  retry: { maxAttempts: 3, initialDelayMillis: 100, maxElapsedMillis: 5_000 }
} as const

const perRootVariable = Config.String("CONNECTED_VEHICLE_BASE_URL").pipe(Config.option)

/**
 * The target, the transport configuration and the transport of the options:
 *
 * - `--target URL` (or `CONNECTED_VEHICLE_ORIGIN`): one origin serving everything;
 * - `CONNECTED_VEHICLE_BASE_URL` and the other per-root variables of
 *   `@connected-vehicle/transport` (a real deployment with separate roots);
 * - otherwise the embedded simulator, started for the duration of the command.
 *
 * A remote target needs the client id and secret (`--client-id`,
 * `--client-secret`, or `CONNECTED_VEHICLE_CLIENT_ID` /
 * `CONNECTED_VEHICLE_CLIENT_SECRET`); the embedded simulator brings its own.
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import * as Target from "@connected-vehicle/sample/Target"
 *
 * const Embedded = Target.layer({ target: Option.none(), clientId: Option.none(), clientSecret: Option.none() })
 * ```
 * @since 0.1.0
 */
export const layer = (
  options: Options
): Layer.Layer<Target | Transport.Transport | TransportConfig.TransportConfig, SampleError | Config.ConfigError> =>
  Layer.unwrap(Effect.gen(function*() {
    const perRoot = yield* perRootVariable
    if (Option.isNone(options.target) && Option.isNone(perRoot)) return embedded
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(options.clientSecret)
    if (clientId === undefined || clientSecret === undefined) {
      return yield* new SampleError({
        reason: "A remote target needs --client-id and --client-secret (or CONNECTED_VEHICLE_CLIENT_ID and CONNECTED_VEHICLE_CLIENT_SECRET)"
      })
    }
    const config = Option.isSome(options.target)
      ? TransportConfig.layerOrigin(options.target.value, policies)
      : TransportConfig.layerConfig
    const label = Option.isSome(options.target) ? options.target.value : "the roots of CONNECTED_VEHICLE_*_URL"
    return transport(config).pipe(
      Layer.merge(Layer.succeed(Target, { label, embedded: false, clientId, clientSecret, simulator: undefined }))
    )
  }))

const transport = <E>(config: Layer.Layer<TransportConfig.TransportConfig, E>) =>
  Layer.provideMerge(Transport.layer, Layer.merge(config, NodeHttpClient.layerUndici))

// The simulator is imported only when it is used: a remote target starts faster.
const embedded: Layer.Layer<Target | Transport.Transport | TransportConfig.TransportConfig> = Layer.unwrap(
  Effect.gen(function*() {
    const { Simulator: Service, layer: simulatorLayer } = yield* Effect.promise(() =>
      import("@connected-vehicle/simulator/Simulator")
    )
    return Layer.unwrap(Effect.gen(function*() {
      const simulator = yield* Service
      return transport(TransportConfig.layerOrigin(simulator.url, policies)).pipe(
        Layer.merge(Layer.succeed(Target, {
          label: `embedded simulator at ${simulator.url}`,
          embedded: true,
          clientId: simulator.clientId,
          clientSecret: simulator.clientSecret,
          simulator
        }))
      )
    })).pipe(Layer.provide(simulatorLayer({ port: 0 })))
  })
)
