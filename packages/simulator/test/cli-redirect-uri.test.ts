/**
 * An app's redirect URI (`myapp://callback`, RFC 8252 section 7.1), which the
 * SDK accepts (`redirectUriIssue`), registered with `--redirect-uri`: the CLI
 * takes it, and a consent and its code exchange with it work over loopback
 * against that process; a relative one is refused, by the CLI and the consent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))

interface Ended {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs the CLI with `args`: once it serves, `use` gets its URL, then it is
 * stopped (SIGTERM); when it ends first (a usage error), `use` is not called.
 */
const withCli = (args: ReadonlyArray<string>, use: (url: string) => Promise<void>) =>
  Effect.promise(() =>
    new Promise<Ended>((resolve, reject) => {
      const child = spawn(process.execPath, [bin, "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] })
      let stdout = ""
      let stderr = ""
      let started = false
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
      child.stderr.on("data", (chunk: Buffer) => stderr += chunk.toString())
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString()
        if (started || !stdout.includes("docs:")) return
        started = true
        use(/^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(stdout)![1]!).then(
          () => child.kill("SIGTERM"),
          (error) => {
            child.kill("SIGKILL")
            reject(error)
          }
        )
      })
      child.on("close", (code) => {
        clearTimeout(timer)
        resolve({ code, stdout, stderr })
      })
    })
  )

const authorize = (url: string, redirectUri: string) =>
  fetch(
    `${url}/oauth/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: "demo-client-id",
      redirect_uri: redirectUri,
      scope: "read_odometer",
      state: "s-1"
    })}`,
    { redirect: "manual" }
  )

describe("--redirect-uri with an app's scheme", () => {
  it.live("myapp://callback is registered: the consent redirects to it with a code, which the exchange with it takes", () =>
    Effect.gen(function*() {
      const ended = yield* withCli(["--redirect-uri", "myapp://callback", "--redirect-uri", "http://127.0.0.1:*"], async (url) => {
        const consent = await authorize(url, "myapp://callback")
        assert.strictEqual(consent.status, 302, await consent.text())
        const location = new URL(consent.headers.get("location")!)
        assert.strictEqual(`${location.protocol}//${location.host}${location.pathname}`, "myapp://callback")
        assert.strictEqual(location.searchParams.get("state"), "s-1")
        const code = location.searchParams.get("code")!
        const exchange = (redirectUri: string) =>
          fetch(`${url}/oauth/token`, {
            method: "POST",
            headers: {
              authorization: "Basic " + Buffer.from("demo-client-id:demo-client-secret").toString("base64"),
              "content-type": "application/x-www-form-urlencoded",
              "user-agent": "redirect-uri-test"
            },
            body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri })
          })
        const token = await exchange("myapp://callback")
        const body = (await token.json()) as { readonly token_type?: string; readonly refresh_token?: string }
        assert.strictEqual(token.status, 200, JSON.stringify(body))
        assert.strictEqual(body.token_type, "Bearer")
        assert.isString(body.refresh_token)
        // matched exactly: another path is not registered, a relative URI no redirect URI (400, no redirect)
        for (const [other, says] of [["myapp://callback/other", "is not registered"], ["myapp://other", "is not registered"], ["../callback", "can be no redirect URI"], ["/callback", "can be no redirect URI"]]) {
          const refused = await authorize(url, other!)
          assert.strictEqual(refused.status, 400, other)
          assert.include(((await refused.json()) as { readonly error_description: string }).error_description, `redirect_uri ${says}`, other)
        }
      })
      assert.strictEqual(ended.code, 0, ended.stderr)
      assert.include(ended.stdout, "\nredirect URIs: myapp://callback http://127.0.0.1:*\n")
    }), 60_000)

  it.live("a relative --redirect-uri, or one with a control character, is a usage error (exit 2), nothing served", () =>
    Effect.gen(function*() {
      for (const uri of ["../callback", "/callback", "callback", "myapp://call\u0007back"]) {
        const ended = yield* withCli(["--redirect-uri", uri], () => Promise.reject(new Error(`${uri} was served`)))
        assert.strictEqual(ended.code, 2, `${uri}: ${ended.stderr}`)
        assert.match(ended.stderr, /^error: --redirect-uri /, uri)
        assert.strictEqual(ended.stdout, "")
      }
    }), 90_000)
})
