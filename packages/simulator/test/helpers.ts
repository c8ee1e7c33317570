/**
 * Small HTTP helpers for the tests: every call returns status, headers and the
 * parsed JSON body (or the raw text when the body is not JSON).
 */
import { ErrorEnvelope } from "@connected-vehicle/schema/ServiceError"
import { OAuthErrorBody } from "@connected-vehicle/schema/OAuth"
import { Effect, Redacted, Schema } from "effect"
import { spawn } from "node:child_process"
import type { Server } from "node:http"
import { fileURLToPath } from "node:url"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { Simulator } from "../src/Simulator.ts"

export interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
  readonly json: any
}

export interface CallOptions {
  readonly headers?: Record<string, string>
  readonly form?: Record<string, string>
  readonly json?: unknown
  readonly body?: string
  readonly contentType?: string
}

/** One request against the simulator of the context (loopback URL or in-memory client). */
export const call = (method: string, path: string, options: CallOptions = {}) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method as "GET")(sim.url + path).pipe(
      HttpClientRequest.setHeaders(options.headers ?? {})
    )
    if (options.form !== undefined) request = HttpClientRequest.bodyUrlParams(request, options.form)
    if (options.json !== undefined) request = HttpClientRequest.bodyJsonUnsafe(request, options.json)
    if (options.body !== undefined) {
      request = HttpClientRequest.bodyText(request, options.body, options.contentType ?? "text/plain")
    }
    const response = yield* client.execute(request)
    const text = yield* response.text
    let json: unknown = undefined
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, text, json } as Reply
  }).pipe(
    Effect.scoped,
    // never follow the consent redirect to the (fictitious) client
    Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" })
  )

export const isEnvelope = Schema.is(ErrorEnvelope)
export const isOAuthBody = Schema.is(OAuthErrorBody)

export const basic = Effect.gen(function*() {
  const sim = yield* Simulator
  return "Basic " + Buffer.from(`${sim.clientId}:${Redacted.value(sim.clientSecret)}`).toString("base64")
})

/** An application token (client-credentials grant). */
export const appToken = Effect.gen(function*() {
  const reply = yield* call("POST", "/oauth/token", {
    headers: { authorization: yield* basic },
    form: { grant_type: "client_credentials" }
  })
  if (reply.status !== 200) return yield* Effect.die(`token: ${reply.status} ${reply.text}`)
  return reply.json.access_token as string
})

/** Consent for a user (login_hint) and the code exchange: the user's tokens. */
export const userTokens = (options: { readonly scope?: string; readonly userId?: string } = {}) =>
  Effect.gen(function*() {
    const sim = yield* Simulator
    const redirect = "https://app.example/callback"
    const query = new URLSearchParams({
      response_type: "code",
      client_id: sim.clientId,
      redirect_uri: redirect,
      state: "s1",
      ...(options.scope === undefined ? {} : { scope: options.scope }),
      ...(options.userId === undefined ? {} : { login_hint: options.userId })
    })
    const consent = yield* call("GET", `/oauth/authorize?${query}`)
    if (consent.status !== 302) return yield* Effect.die(`authorize: ${consent.status} ${consent.text}`)
    const code = new URL(consent.headers["location"]!).searchParams.get("code")!
    const reply = yield* call("POST", "/oauth/token", {
      headers: { authorization: yield* basic },
      form: { grant_type: "authorization_code", code, redirect_uri: redirect }
    })
    if (reply.status !== 200) return yield* Effect.die(`token: ${reply.status} ${reply.text}`)
    return { access: reply.json.access_token as string, refresh: reply.json.refresh_token as string }
  })

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** Waits (on the wall clock: a test clock does not move) until `check` holds; a defect after `timeoutMillis`. */
export const waitFor = <A>(what: string, check: () => A | undefined | false, timeoutMillis = 30_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMillis
    while (true) {
      const value = check()
      if (value !== undefined && value !== false) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
  })

/**
 * `server` listening on 127.0.0.1 (any free port) for the scope: its port; on
 * close, its connections dropped, then `onClose` (the receivers' `dispose`).
 */
export const listening = (server: Server, onClose: () => Promise<unknown>) =>
  Effect.acquireRelease(
    Effect.callback<number>((resume) => {
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
      })
    }),
    () =>
      Effect.promise(async () => {
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
        await onClose()
      })
  )

/** What `f` threw, if anything (a layer constructor's `InvalidArgument`, say). */
export const thrown = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  return undefined
}

/** The simulator's CLI (`src/bin.ts`), run by the repository's Node. */
export const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))

/** Runs the CLI to its end (killed after `killAfter` ms, 30 s by default): exit code, stdout, stderr. */
export const run = (args: ReadonlyArray<string>, killAfter = 30_000) =>
  Effect.promise(() =>
    new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => stdout += chunk.toString())
      child.stderr.on("data", (chunk: Buffer) => stderr += chunk.toString())
      const timer = setTimeout(() => child.kill("SIGKILL"), killAfter)
      child.on("close", (code) => {
        clearTimeout(timer)
        resolve({ code, stdout, stderr })
      })
    })
  )

/** An application token (client credentials of the simulator's defaults) from the token endpoint at `tokenUrl`, over HTTP. */
export const defaultAppToken = (tokenUrl: string) =>
  Effect.promise(() =>
    fetch(tokenUrl, {
      method: "POST",
      headers: {
        authorization: "Basic " + Buffer.from("demo-client-id:demo-client-secret").toString("base64"),
        "content-type": "application/x-www-form-urlencoded"
      },
      body: "grant_type=client_credentials"
    }).then((r) => r.json() as Promise<{ access_token: string }>)
  ).pipe(Effect.map((body) => body.access_token))

