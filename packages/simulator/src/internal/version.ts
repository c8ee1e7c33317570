/**
 * The version of this package, as published: written by `pnpm run version`
 * (`scripts/version.ts`) after `changeset version`, and checked against
 * package.json by `test/version.test.ts`.
 *
 * @internal
 */
export const simulatorVersion: string = "0.4.0"
