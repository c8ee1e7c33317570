/**
 * The one check of a store's URL (`DATABASE_URL`, `REDIS_URL`, the `url`
 * options): why it cannot be used (it does not parse, another scheme, port 0), never quoting it (a password may be in
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
  const url = new URL(value)
  if (!schemes.includes(url.protocol)) return `expected a ${schemes.map((s) => `${s}//`).join(" or ")} URL`
  // `:0` (and `:00`) parses, and no server listens there
  return url.port === "0" ? "has port 0 (a port is 1-65535)" : undefined
}
