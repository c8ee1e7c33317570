/** @internal */
import pkg from "../../package.json" with { type: "json" }

/** The version of this package, as published (read from its package.json). @internal */
export const sdkVersion: string = pkg.version
