/**
 * @since 0.1.0
 */
export * as Authorize from "./Authorize.ts"
export * as Export from "./Export.ts"
export * as Listen from "./Listen.ts"
export * as Progress from "./Progress.ts"
export * as RedirectListener from "./RedirectListener.ts"
export * as Render from "./Render.ts"
export * as SampleError from "./SampleError.ts"
export * as Sdk from "./Sdk.ts"
export * as Table from "./Table.ts"
export * as Target from "./Target.ts"
export * as TokenFile from "./TokenFile.ts"
