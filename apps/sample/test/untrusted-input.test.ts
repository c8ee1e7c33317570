/**
 * Input the CLI must not trust, run as a child process: secret files that
 * are not regular files or are too large (refused at once, never read without
 * end nor waited on), and text from the service carrying what a terminal acts
 * on (escape sequences, C1 controls, bidirectional formatting, separators),
 * shown escaped in tables, error reports and JSON, from a loopback server
 * standing in for the service.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { createServer } from "node:http"
import type { Server } from "node:http"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll } from "vitest"
import { killAll, parseJson, run, secretFile, tempDir } from "./cli.ts"

const LONG = 180_000

/** Every character a terminal acts on that the tests put in the service's text. */
const active = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

const remote = (url: string) => ["--target", url, "--client-id", "x", "--client-secret-file", secretFile("y")]

describe.concurrent("secret files: regular files of a bounded size only", () => {
  const dir = tempDir("untrusted")
  const fifo = join(dir, "fifo")
  execFileSync("mkfifo", [fifo])
  const large = join(dir, "large")
  writeFileSync(large, "a".repeat(64 * 1024 + 1))
  const binary = join(dir, "binary")
  writeFileSync(binary, Buffer.from([0x9f, 0x92, 0x96, 0xff, 0x00, 0x1b, 0x41, 0x0a]))
  const escaped = join(dir, "escaped")
  writeFileSync(escaped, "\u001b]0;secret-token\u0007\n")

  it("webhooks listen --secret-file: a device, a named pipe, a directory, a large file, one not text: exit 2 at once, one reason line", {
    timeout: LONG
  }, async () => {
    const cases = [
      ["/dev/zero", "not a regular file (a character device)"],
      [fifo, "not a regular file (a named pipe)"],
      [dir, "not a regular file (a directory)"],
      [large, "larger than 65536 bytes"],
      [join(dir, "missing"), "ENOENT"],
      [binary, "not UTF-8 text"],
      [escaped, "holds a control character"]
    ] as const
    const results = await Promise.all(cases.map(([file]) => run(["webhooks", "listen", "--port", "0", "--secret-file", file])))
    results.forEach((result, i) => {
      const [file, why] = cases[i]!
      assert.strictEqual(result.code, 2, result.stderr)
      assert.include(result.stderr, `reason: Cannot read the webhook secret file ${file}: ${why}`)
      assert.notInclude(result.stderr, "Listening")
      assert.strictEqual(result.stdout, "")
      assert.notInclude(result.stderr, "secret-token")
    })
  })

  it("--client-secret-file /dev/zero and a named pipe: exit 2 before any request", { timeout: LONG }, async () => {
    const withSecretFile = (file: string) =>
      run(["--target", "http://127.0.0.1:1", "--client-id", "x", "--client-secret-file", file, "connections"])
    const [zero, pipe] = await Promise.all([withSecretFile("/dev/zero"), withSecretFile(fifo)])
    assert.strictEqual(zero.code, 2, zero.stderr)
    assert.include(zero.stderr, "Cannot read the client secret file /dev/zero: not a regular file (a character device)")
    assert.strictEqual(pipe.code, 2, pipe.stderr)
    assert.include(pipe.stderr, `Cannot read the client secret file ${fifo}: not a regular file (a named pipe)`)
  })
})

const entry = (make: string, model: string) => ({
  id: "evil:1",
  type: "vehicle-model-capability",
  attributes: {
    make,
    model,
    region: "US",
    powertrainType: "BEV",
    years: { start: 2020, end: 2025 },
    capabilities: [{
      type: "signal",
      name: "Traveled Distance",
      group: "Odometer",
      code: "odometer-traveleddistance",
      capability: "read_odometer",
      permission: "read_odometer"
    }]
  }
})

/** The service's answers: the listing (`?filter[make]=error`: a 404 whose fields carry escape sequences). */
const hostile = (): Promise<{ readonly url: string; readonly server: Server }> =>
  new Promise((resolve) => {
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://localhost")
      const send = (status: number, body: unknown) => {
        response.writeHead(status, { "content-type": "application/json" })
        response.end(JSON.stringify(body))
      }
      if (url.pathname !== "/v3/compatible-vehicles") return send(404, {})
      if (url.searchParams.get("filter[make]") === "error") {
        return send(404, {
          errors: [{
            status: "404",
            type: "RESOURCE_NOT_FOUND",
            code: "NOT\u001b[2J_FOUND",
            title: "Not\u009b31m Found",
            detail: "gone\u001b]0;owned\u0007\nFAKE: line",
            suggestedUserMessage: "try \u202eagain\u2028later"
          }]
        })
      }
      return send(200, {
        data: [entry("Tes\u001b[31mla\u009b2J", "Model\r\u200fY\u2066")],
        meta: { page: 1, pageSize: 1, totalCount: 1 },
        links: { self: url.href }
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resolve({ url: `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`, server })
    })
  })

const servers: Array<Server> = []
afterAll(() => {
  killAll()
  for (const server of servers) server.closeAllConnections(), server.close()
})

describe.concurrent("the service's text is shown escaped", () => {
  it("table cells: no control character reaches the terminal; escapes shown instead; one line per row", {
    timeout: LONG
  }, async () => {
    const { url, server } = await hostile()
    servers.push(server)
    const result = await run([...remote(url), "compat"])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.notMatch(result.stdout, active)
    assert.include(result.stdout, "Tes\\u001b[31mla\\u009b2J")
    assert.include(result.stdout, "Model\\r\\u200fY\\u2066")
    const row = result.stdout.split("\n").filter((line) => line.startsWith("Tes"))
    assert.strictEqual(row.length, 1, result.stdout)
  })

  it("an error's code, title, detail and message for the user: escaped, one line each; exit 1", { timeout: LONG }, async () => {
    const { url, server } = await hostile()
    servers.push(server)
    const result = await run([...remote(url), "compat", "--make", "error"])
    assert.strictEqual(result.code, 1, result.stderr)
    assert.notMatch(result.stderr, active)
    assert.include(result.stderr, "NOT\\u001b[2J_FOUND")
    assert.include(result.stderr, "Not\\u009b31m Found")
    assert.include(result.stderr, "gone\\u001b]0;owned\\u0007\\nFAKE: line")
    assert.include(result.stderr, "try \\u202eagain\\u2028later")
    assert.isFalse(result.stderr.split("\n").some((line) => line.startsWith("FAKE")), result.stderr)
  })

  it("--json: the same values, with no raw C1, bidi or separator character", { timeout: LONG }, async () => {
    const { url, server } = await hostile()
    servers.push(server)
    const [listing, failure] = await Promise.all([
      run([...remote(url), "compat", "--json"]),
      run([...remote(url), "compat", "--make", "error", "--json"])
    ])
    assert.strictEqual(listing.code, 0, listing.stderr)
    assert.notMatch(listing.stdout, active)
    assert.strictEqual(parseJson(listing).data[0].attributes.make, "Tes\u001b[31mla\u009b2J")
    assert.strictEqual(failure.code, 1, failure.stderr)
    assert.notMatch(failure.stdout, active)
    assert.strictEqual(parseJson(failure).error.suggestedUserMessage, "try \u202eagain\u2028later")
  })
})
