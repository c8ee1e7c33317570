/**
 * @since 0.1.0
 */

/**
 * The legacy (v2.0) authorization-code flow, with a local redirect listener.
 *
 * @example
 * ```ts
 * import { Authorize } from "@connected-vehicle/sample"
 *
 * const scope = Authorize.permissions.join(" ")
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Authorize from "./Authorize.ts"
/**
 * The export writer: a stream of pages written to a file as NDJSON or CSV.
 *
 * @example
 * ```ts
 * import { Export } from "@connected-vehicle/sample"
 *
 * Export.formatOf("connections.ndjson", undefined) // "ndjson"
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Export from "./Export.ts"
/**
 * The `fleet` command: a burst of webhook deliveries through
 * `@connected-vehicle/fleet`, embedded.
 *
 * @example
 * ```ts
 * import { Fleet } from "@connected-vehicle/sample"
 *
 * const show = (summary: Fleet.Summary) => console.log(Fleet.renderSummary(summary))
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Fleet from "./Fleet.ts"
/**
 * Receiving webhooks: `webhooks listen` and the tour's delivery step.
 *
 * @example
 * ```ts
 * import { Listen } from "@connected-vehicle/sample"
 *
 * const hint = `set ${Listen.SECRET_VARIABLE} or pass --secret-file`
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Listen from "./Listen.ts"
/**
 * Text from the service as the CLI shows it: the characters a terminal acts
 * on written as escapes (`\u001b`, `\n`).
 *
 * @example
 * ```ts
 * import { Printable } from "@connected-vehicle/sample"
 *
 * Printable.printable("ASLEEP\u001b[31m") // "ASLEEP\\u001b[31m"
 * ```
 * @since 0.2.0
 * @category modules
 */
export * as Printable from "./Printable.ts"
/**
 * A progress bar on stderr for streamed exports.
 *
 * @example
 * ```ts
 * import { Progress } from "@connected-vehicle/sample"
 *
 * const progress = Progress.start("vehicles")
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Progress from "./Progress.ts"
/**
 * The local redirect listener of the consent flow.
 *
 * @example
 * ```ts
 * import { RedirectListener } from "@connected-vehicle/sample"
 *
 * const listener = RedirectListener.start({ port: 0, state: "f3a9c1" }) // needs a Scope
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as RedirectListener from "./RedirectListener.ts"
/**
 * Human renderings of the service's resources as aligned tables.
 *
 * @example
 * ```ts
 * import { Render } from "@connected-vehicle/sample"
 *
 * Render.keyValues([["vehicle", "v-1"], ["make", "Tesla"]])
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Render from "./Render.ts"
/**
 * Errors of the sample app itself.
 *
 * @example
 * ```ts
 * import { SampleError } from "@connected-vehicle/sample"
 *
 * const missing = new SampleError.SampleError({ reason: "--vehicle is required", usage: true })
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as SampleError from "./SampleError.ts"
/**
 * The sample's own environment (token file, webhook secret, invocation), one
 * Effect `Config` value.
 *
 * @example
 * ```ts
 * import { SampleConfig } from "@connected-vehicle/sample"
 *
 * const settings = SampleConfig.config
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as SampleConfig from "./SampleConfig.ts"
/**
 * The SDK wired through Layers for one command.
 *
 * @example
 * ```ts
 * import type { Effect } from "effect"
 * import type { Sdk } from "@connected-vehicle/sample"
 *
 * type Command = Effect.Effect<void, unknown, Sdk.Services>
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Sdk from "./Sdk.ts"
/**
 * Plain-text tables.
 *
 * @example
 * ```ts
 * import { Table } from "@connected-vehicle/sample"
 *
 * Table.render([{ id: "v-1" }], [{ header: "id", cell: (row) => row.id }])
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Table from "./Table.ts"
/**
 * Where the CLI talks to: the embedded simulator or a remote server.
 *
 * @example
 * ```ts
 * import { Target } from "@connected-vehicle/sample"
 *
 * Target.isUserKey("user@demo-client-id") // true
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as Target from "./Target.ts"
/**
 * A `TokenStore` kept in a JSON file.
 *
 * @example
 * ```ts
 * import { TokenFile } from "@connected-vehicle/sample"
 *
 * const tokens = TokenFile.layer("/tmp/tokens.json")
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as TokenFile from "./TokenFile.ts"
/**
 * The tour's last step: one event of the embedded simulator delivered to a
 * receiver in this process.
 *
 * @example
 * ```ts
 * import { TourDelivery } from "@connected-vehicle/sample"
 *
 * const show = (delivery: TourDelivery.TourDelivery) => console.log(TourDelivery.renderTourDelivery(delivery))
 * ```
 * @since 0.1.0
 * @category modules
 */
export * as TourDelivery from "./TourDelivery.ts"
