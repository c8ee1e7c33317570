/**
 * Credentials from the simulator for tests: a user's authorization code
 * through the simulator's consent step (which approves at once), and an
 * application token through the client-credentials grant.
 *
 * @since 0.1.0
 */
import { Effect, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { AuthorizationApi } from "@connected-vehicle/schema/Api"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Transport from "@connected-vehicle/transport/Transport"

/**
 * The redirect URI of {@link authorizationCode} (registered by the simulator's
 * demo client).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Session from "@connected-vehicle/auth/Session"
 * import * as SignIn from "@connected-vehicle/testing/SignIn"
 *
 * const login = (userId: string) =>
 *   Effect.flatMap(SignIn.authorizationCode(userId), (code) => Session.login(userId, { code, redirectUri: SignIn.redirectUri }))
 * ```
 * @since 0.1.0
 * @category constants
 */
export const redirectUri = "https://app.example/callback"

/**
 * The code of the simulator's consent redirect for `userId` (sent as
 * `login_hint`; the redirect is not followed), with `scope` (space-separated
 * permissions, all of them when absent). Dies when the simulator refuses.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Simulator } from "@connected-vehicle/simulator/Simulator"
 * import * as SignIn from "@connected-vehicle/testing/SignIn"
 *
 * const code = Effect.gen(function*() {
 *   const sim = yield* Simulator
 *   return yield* SignIn.authorizationCode(sim.data.users[0]!.id, { scope: "read_odometer" })
 * })
 * ```
 * @since 0.1.0
 * @category sign-in
 */
export const authorizationCode = (
  userId: string,
  options?: { readonly scope?: string | undefined }
): Effect.Effect<string, never, Simulator.Simulator | HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const client = yield* HttpClient.HttpClient
    const origin = sim.url === "" ? Simulator.TEST_ORIGIN : sim.url
    const query = new URLSearchParams({
      response_type: "code",
      client_id: sim.clientId,
      redirect_uri: redirectUri,
      login_hint: userId,
      ...(options?.scope === undefined ? {} : { scope: options.scope })
    })
    const response = yield* client.execute(HttpClientRequest.get(`${origin}/oauth/authorize?${query}`)).pipe(
      Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }),
      Effect.orDie
    )
    const answer = new URL(response.headers["location"] ?? "", origin).searchParams
    const code = answer.get("code")
    if (code === null) {
      // a redirect with an OAuth error says which (RFC 6749 section 4.1.2.1); a 400 its status
      const error = answer.get("error")
      const why = error === null ? `${response.status}` : `${response.status} ${error}: ${answer.get("error_description") ?? ""}`
      return yield* Effect.die(`the simulator refused consent for ${userId}: ${why}`)
    }
    return code
  })

/**
 * An application access token (`Redacted`) from the simulator
 * (client-credentials grant with the simulator's client), through the
 * transport's token endpoint.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Loopback from "@connected-vehicle/testing/Loopback"
 * import * as SignIn from "@connected-vehicle/testing/SignIn"
 *
 * const token = SignIn.applicationToken.pipe(Effect.provide(Loopback.layer()))
 * ```
 * @since 0.1.0
 * @category sign-in
 */
export const applicationToken = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const oauth = yield* Transport.publicClient(AuthorizationApi, "oauth")
  const basic = Buffer.from(`${sim.clientId}:${Redacted.value(sim.clientSecret)}`).toString("base64")
  const { value } = yield* oauth.token({
    headers: { authorization: `Basic ${basic}` },
    payload: { grant_type: "client_credentials" }
  })
  return value.access_token
})
