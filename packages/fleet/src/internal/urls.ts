/**
 * The one check of a store's URL (`DATABASE_URL`, `REDIS_URL`, the `url`
 * options): why it cannot be used, never quoting it (a password may be in
 * it; Node's own parse error would carry it whole in its `input`).
 *
 * @internal
 */

/** @internal */
export const urlIssue = (value: string, schemes: ReadonlyArray<string>): string | undefined => {
  if (!URL.canParse(value)) {
    return "does not parse as a URL (percent-encode the reserved characters of the user and the password, such as # / ? @ :; " +
      "a port is 1-65535)"
  }
  return schemes.includes(new URL(value).protocol) ? undefined : `expected a ${schemes.map((s) => `${s}//`).join(" or ")} URL`
}
