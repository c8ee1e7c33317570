/**
 * The baseline of `signals.bench.ts`: a bare `node:http` server that answers
 * each path it is given with the exact status, headers (in order) and body
 * the simulator sent for it, and 404 for anything else. Runs in its own
 * process; prints `listening on http://127.0.0.1:PORT`.
 *
 *   node bench/bare.ts <file.json>   // [{ "path", "status", "headers": [name, value, ...], "body" }]
 */
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

interface Captured {
  readonly path: string
  readonly status: number
  readonly headers: ReadonlyArray<string>
  readonly body: string
}

const file = process.argv[2]
if (file === undefined) throw new Error("usage: node bench/bare.ts <responses.json>")
const routes = new Map(
  (JSON.parse(readFileSync(file, "utf8")) as ReadonlyArray<Captured>).map((c) => [c.path, { ...c, bytes: Buffer.from(c.body) }])
)

const server = createServer((req, res) => {
  const route = routes.get(req.url ?? "")
  if (route === undefined) {
    res.writeHead(404, { "content-length": 0 })
    res.end()
    return
  }
  res.writeHead(route.status, route.headers as Array<string>)
  res.end(route.bytes)
})
server.listen(0, "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`)
})
