/**
 * @since 0.1.0
 */

/**
 * The legacy (v2.0) authorization-code flow, with a local redirect listener.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Authorize from "./Authorize.ts"
/**
 * The export writer: a stream of pages written to a file as NDJSON or CSV.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Export from "./Export.ts"
/**
 * The `fleet` command: a burst of webhook deliveries through
 * `@connected-vehicle/fleet`, embedded.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Fleet from "./Fleet.ts"
/**
 * Receiving webhooks: `webhooks listen` and the tour's delivery step.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Listen from "./Listen.ts"
/**
 * A progress bar on stderr for streamed exports.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Progress from "./Progress.ts"
/**
 * The local redirect listener of the consent flow.
 *
 * @since 0.1.0
 * @category modules
 */
export * as RedirectListener from "./RedirectListener.ts"
/**
 * Human renderings of the service's resources as aligned tables.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Render from "./Render.ts"
/**
 * Errors of the sample app itself.
 *
 * @since 0.1.0
 * @category modules
 */
export * as SampleError from "./SampleError.ts"
/**
 * The SDK wired through Layers for one command.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Sdk from "./Sdk.ts"
/**
 * Plain-text tables.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Table from "./Table.ts"
/**
 * Where the CLI talks to: the embedded simulator or a remote server.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Target from "./Target.ts"
/**
 * A `TokenStore` kept in a JSON file.
 *
 * @since 0.1.0
 * @category modules
 */
export * as TokenFile from "./TokenFile.ts"
