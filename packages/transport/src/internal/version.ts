/** @internal */
export const sdkVersion = "0.1.0"
