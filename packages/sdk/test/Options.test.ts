import { assert, describe, it } from "@effect/vitest"
import { createClient, InvalidArgumentError } from "@connected-vehicle/sdk/Client"
import type { ClientOptions } from "@connected-vehicle/sdk/Client"

const base = { clientId: "app", clientSecret: "secret", origin: "http://127.0.0.1:9" }

const refused = (options: unknown): InvalidArgumentError => {
  try {
    const client = createClient(options as ClientOptions)
    void client.close()
  } catch (error) {
    assert.instanceOf(error, InvalidArgumentError)
    return error as InvalidArgumentError
  }
  throw new Error("createClient accepted the options")
}

/** `target` with an enumerable getter `key` that gives `value` once, then throws. */
const readOnce = <T extends object>(target: T, key: string, value: unknown): T => {
  let reads = 0
  return Object.defineProperty(target, key, {
    enumerable: true,
    get: () => {
      if (reads++ > 0) throw new Error(`${key} read twice`)
      return value
    }
  })
}

describe("createClient options", () => {
  it("an origin or a root with a query or a fragment is refused (every path would be sent elsewhere); the URL is not quoted", () => {
    for (const origin of ["http://127.0.0.1:9/?x=1", "http://127.0.0.1:9/#frag", "http://127.0.0.1:9/api?", "http://127.0.0.1:9/api#"]) {
      const error = refused({ ...base, origin })
      assert.strictEqual(error.field, "origin", origin)
      assert.strictEqual(error.message, "origin: Expected a URL without a query or fragment")
    }
    const roots = { base: "http://h/v3", management: "http://h/v3", compatibility: "http://h/v3", authorization: "http://h", legacy: "http://h?token=s3cret" }
    const error = refused({ clientId: "app", clientSecret: "secret", roots })
    assert.strictEqual(error.field, "roots.legacy")
    assert.notInclude(error.message, "s3cret")
  })

  it("a clientId holding a colon (the Basic credential joins id and secret with one) is refused when the client is created", () => {
    const error = refused({ ...base, clientId: "team:app" })
    assert.strictEqual(error.field, "clientId")
    assert.include(error.message, "colon")
  })

  it("a tokenStore that is neither a Layer nor an object with get, set and remove functions is refused when the client is created", () => {
    for (const tokenStore of [{}, { get: () => undefined }, 42, "store", null]) {
      assert.strictEqual(refused({ ...base, tokenStore }).field, "tokenStore", JSON.stringify(tokenStore))
    }
  })

  it("a field of the transport option is named with its path; the client's own with its name", () => {
    const nested = refused({ ...base, transport: { timeout: 0 } })
    assert.strictEqual(nested.field, "transport.timeout")
    assert.match(nested.message, /^transport\.timeout: /)
    assert.strictEqual(refused({ ...base, transport: { retry: { maxAttempts: 0 } } }).field, "transport.retry.maxAttempts")
    assert.strictEqual(refused({ ...base, transport: { retry: null } }).field, "transport.retry")
    assert.strictEqual(refused({ ...base, transport: { requestIdHeader: [42] } }).field, "transport.requestIdHeader")
    assert.strictEqual(refused({ ...base, timeout: 0 }).field, "timeout")
  })

  it("every option is checked when the client is created: userKey, unitSystem, redirectUri and the transport's userAgent, httpSpans and logLevel", () => {
    const fields = [
      { userKey: "" },
      { userKey: 42 },
      { userKey: "tab\there" },
      { userKey: "k".repeat(1025) },
      { unitSystem: "bogus" },
      { redirectUri: 5 },
      { redirectUri: "not a url" },
      { transport: { userAgent: 5 } },
      { transport: { userAgent: "" } },
      { transport: { userAgent: "a\r\nx-injected: 1" } },
      { transport: { httpSpans: "yes" } },
      { transport: { logLevel: "loud" } }
    ].map((given) => refused({ ...base, ...given }).field)
    assert.deepStrictEqual(fields, [
      "userKey",
      "userKey",
      "userKey",
      "userKey",
      "unitSystem",
      "redirectUri",
      "redirectUri",
      "transport.userAgent",
      "transport.userAgent",
      "transport.userAgent",
      "transport.httpSpans",
      "transport.logLevel"
    ])
    // what a user may legitimately give
    for (const given of [{ userKey: "user:1234" }, { userKey: "ana@example.com" }, { unitSystem: "imperial" }, { redirectUri: "myapp://callback" }, {
      transport: { userAgent: "fleet/1.0", httpSpans: true, logLevel: "Debug" }
    }]) {
      void createClient({ ...base, ...given } as ClientOptions).close()
    }
  })

  it("of the transport's variables, a client configured in code reads CONNECTED_VEHICLE_LOG alone", () => {
    const unrelated = {
      CONNECTED_VEHICLE_ORIGIN: "not a url",
      CONNECTED_VEHICLE_TIMEOUT: "soon",
      CONNECTED_VEHICLE_TIMEOUT_MS: "many",
      CONNECTED_VEHICLE_MAX_ATTEMPTS: "-1",
      CONNECTED_VEHICLE_HTTP_SPANS: "maybe"
    }
    const saved = Object.fromEntries(["CONNECTED_VEHICLE_LOG", ...Object.keys(unrelated)].map((name) => [name, process.env[name]]))
    try {
      Object.assign(process.env, unrelated, { CONNECTED_VEHICLE_LOG: "WARN" })
      void createClient(base).close()
      process.env["CONNECTED_VEHICLE_LOG"] = "verbose"
      const error = refused(base)
      assert.strictEqual(error.field, "CONNECTED_VEHICLE_LOG")
      // the option wins: the variable is not read
      void createClient({ ...base, logLevel: "debug" }).close()
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    }
  })

  it("CONNECTED_VEHICLE_DEPRECATION_WARNINGS is read in any case, as CONNECTED_VEHICLE_LOG; another word is refused naming it", () => {
    const saved = process.env["CONNECTED_VEHICLE_DEPRECATION_WARNINGS"]
    try {
      for (const given of ["OFF", "Warn", " info ", "DEBUG"]) {
        process.env["CONNECTED_VEHICLE_DEPRECATION_WARNINGS"] = given
        void createClient(base).close()
      }
      process.env["CONNECTED_VEHICLE_DEPRECATION_WARNINGS"] = "loud"
      const error = refused(base)
      assert.strictEqual(error.field, "CONNECTED_VEHICLE_DEPRECATION_WARNINGS")
      assert.include(error.message, "any case")
    } finally {
      if (saved === undefined) delete process.env["CONNECTED_VEHICLE_DEPRECATION_WARNINGS"]
      else process.env["CONNECTED_VEHICLE_DEPRECATION_WARNINGS"] = saved
    }
  })

  it("each option is read once: a getter that throws on its second read is not reached again", async () => {
    const options = readOnce(readOnce(readOnce({ ...base }, "clientId", "app"), "origin", "http://127.0.0.1:9"), "transport", {
      timeout: "2 seconds"
    })
    const client = createClient(options)
    await client.close()
    // unreadable options are the caller's
    const throwing = Object.defineProperty({ ...base }, "timeout", { enumerable: true, get: () => { throw new Error("boom") } })
    assert.strictEqual(refused(throwing).field, "options")
  })

  it("a call's options and a token are read once", async () => {
    const client = createClient(base)
    try {
      // the client is closed below: a call read its options once before it is refused or runs
      const token = readOnce({ expiresIn: 3600 }, "accessToken", "access") as unknown as { readonly accessToken: string }
      await client.legacy.setUserToken(token)
      const options = readOnce(readOnce({}, "signal", new AbortController().signal), "unitSystem", "imperial")
      const error = await client.legacy.odometer("", options).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, InvalidArgumentError)
      assert.strictEqual((error as InvalidArgumentError).field, "vehicleId")
    } finally {
      await client.close()
    }
  })

  it("transport.roots is refused (the client's origin or roots say where it sends; it was ignored)", () => {
    const error = refused({ ...base, transport: { roots: { base: "http://evil.example:1/v3" } } })
    assert.strictEqual(error.field, "transport.roots")
    assert.include(error.message, "give createClient its origin or roots")
  })

  it("an option the client does not have (a misspelt one from JS) is refused, named, when the client is created", () => {
    const error = refused({ ...base, maxRetry: 3 })
    assert.strictEqual(error.field, "maxRetry")
    assert.include(error.message, "unknown option (expected one of clientId, clientSecret,")
  })

  it("a key of the transport option it does not have, at any depth, is refused named with its path", () => {
    for (
      const [transport, field] of [
        [{ retri: { maxAttempts: 1 } }, "transport.retri"],
        [{ userAgnet: "app/1" }, "transport.userAgnet"],
        [{ retry: { maxRetriez: 1 } }, "transport.retry.maxRetriez"],
        [{ rateLimit: { wiat: true } }, "transport.rateLimit.wiat"]
      ] as const
    ) {
      const error = refused({ ...base, transport } as never)
      assert.strictEqual(error.field, field)
      assert.match(error.message, new RegExp(`^${field.replaceAll(".", "\\.")}: unknown option \\(expected one of `))
    }
    // with maxRetries beside it, the misspelt retry key is still named
    assert.strictEqual(refused({ ...base, maxRetries: 1, transport: { retry: { maxRetriez: 1 } } } as never).field, "transport.retry.maxRetriez")
  })

  it("a call option the call does not have is refused before anything is sent; a token gives expiresAt or expiresIn, not both", async () => {
    const client = createClient(base)
    try {
      const list = client.v3.connections.list as (args: object, options: object) => Promise<unknown>
      const error = await list({}, { timout: "1 second" }).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, InvalidArgumentError)
      assert.strictEqual((error as InvalidArgumentError).field, "timout")
      assert.strictEqual((error as InvalidArgumentError).message, "timout: unknown option (expected one of timeout, maxRetries, signal, unitSystem)")
      const both = await client.legacy.setUserToken({ accessToken: "access", expiresAt: Date.now() + 60_000, expiresIn: 60 }).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(both, InvalidArgumentError)
      assert.strictEqual((both as InvalidArgumentError).field, "expiresIn")
      const misspelt = { accessToken: "access", expires_in: 60 } as unknown as { readonly accessToken: string }
      const field = await client.legacy.setUserToken(misspelt).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(field, InvalidArgumentError)
      assert.strictEqual((field as InvalidArgumentError).field, "expires_in")
      // a key that is no plain name is shown as a JSON string, cut: no control character in the message
      const odd = await list({}, { ["\u001b[31m" + "x".repeat(100)]: 1 }).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(odd, InvalidArgumentError)
      assert.notMatch((odd as InvalidArgumentError).message, /\u001b/)
      assert.isBelow((odd as InvalidArgumentError).message.length, 200)
    } finally {
      await client.close()
    }
  })
})

