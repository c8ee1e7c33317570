/** `login`: the consent flow with a local redirect listener. */
import { Console, Duration, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { ModeValues } from "@connected-vehicle/schema/Common"
import type { ConsentWait } from "../../Authorize.ts"
import { keyValues } from "../../Table.ts"
import { optionalValue, output, portFlag, withSdk } from "./shared.ts"

/** What the user must do while `login` waits for the redirect (without `--follow`). */
const instructions = (url: string, wait: ConsentWait) =>
  [
    "To sign in, open this URL in a browser on this machine and give consent:",
    "",
    `  ${url}`,
    "",
    `The browser is then redirected to ${wait.redirectUri}, where this command listens for the code.`,
    `Waiting up to ${Duration.toSeconds(wait.timeout)} s for that redirect (--timeout SECONDS to change it; Ctrl-C to give up)...`
  ].join("\n")

export const login = Command.make("login", {
  port: portFlag(
    "Port of the local redirect listener on 127.0.0.1, 0 to 65535 (0: any free port; use the registered one for a real deployment)",
    0
  ),
  follow: Flag.Boolean("follow").pipe(
    Flag.withDescription(
      "Request the consent URL yourself and follow its redirect (simulators approve without a user); default on for the embedded simulator"
    ),
    Flag.optional
  ),
  mode: Flag.Literals("mode", ModeValues).pipe(Flag.withDescription("Consent mode: live or simulated"), Flag.optional),
  user: Flag.String("user").pipe(
    Flag.withDescription(
      "The user to sign in, sent as login_hint (simulators sign that user in; a real consent page lets the user choose); default on the embedded simulator: a user with a vehicle whose make answers the service history"
    ),
    Flag.optional
  ),
  timeout: Flag.Int("timeout").pipe(
    Flag.withDescription("Seconds to wait for the redirect before giving up with LoginTimeout, exit 1 (default 120)"),
    Flag.mapTryCatch(
      (seconds) => {
        if (seconds < 1) throw new Error("not positive")
        return seconds
      },
      () => "--timeout must be a number of seconds >= 1"
    ),
    Flag.optional
  )
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      const target = yield* M.Target.Target
      const follow = Option.getOrElse(input.follow, () => target.embedded)
      const key = target.userKey
      const authorization = yield* M.Authorize.run({
        key,
        port: input.port,
        follow,
        mode: optionalValue(input.mode),
        loginHint: Option.getOrElse(input.user, () => target.loginHint),
        timeout: Option.getOrUndefined(Option.map(input.timeout, Duration.seconds)),
        onConsentUrl: (url, wait) => Console.error(follow ? `Consent URL (followed automatically): ${url}` : instructions(url, wait))
      })
      const file = target.embedded && Option.isNone(flags.tokenFile)
        ? "(memory: the embedded simulator stops with this command)"
        : optionalValue(flags.tokenFile) ?? (yield* M.TokenFile.defaultPath)
      const shown = {
        target: target.label,
        key,
        tokenFile: file,
        redirectUri: authorization.redirectUri,
        tokenType: "Bearer",
        accessToken: M.Authorize.redact(authorization.token.accessToken),
        expiresAt: new Date(authorization.token.expiresAt).toISOString(),
        refreshToken: authorization.token.refreshToken === undefined ? null : M.Authorize.redact(authorization.token.refreshToken)
      }
      yield* output(flags.json, shown, () => `Logged in.\n${keyValues(Object.entries(shown))}`)
    })
  )).pipe(Command.withDescription("Run the consent flow with a local redirect listener and store the user's tokens"))
