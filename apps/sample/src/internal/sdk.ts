/**
 * What the command handlers use at run time: the SDK, the simulator wiring,
 * the tour and the renderers. The commands (`internal/cli/`) import this module only when a
 * handler runs, so `--help` and parse errors never load the SDK.
 */
export * as Authorize from "../Authorize.ts"
export * as Migrate from "../Migrate.ts"
export * as Render from "../Render.ts"
export * as Sdk from "../Sdk.ts"
export * as Target from "../Target.ts"
export * as TokenFile from "../TokenFile.ts"
export * as Tour from "../Tour.ts"
export * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
export { Compatibility } from "@connected-vehicle/v3/Compatibility"
export { Connections } from "@connected-vehicle/v3/Connections"
export { Signals } from "@connected-vehicle/v3/Signals"
export { Subscriptions } from "@connected-vehicle/v3/Subscriptions"
export { Webhooks } from "@connected-vehicle/v3/Webhooks"
