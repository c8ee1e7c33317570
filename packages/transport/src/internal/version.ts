/**
 * The version of this package, as published: written by `pnpm run version`
 * (`scripts/version.ts`) after `changeset version`, and checked against
 * package.json by the transport's tests. A constant rather than a JSON
 * import, so that the built package has no file outside `dist`.
 *
 * @internal
 */
export const sdkVersion: string = "0.4.0"
