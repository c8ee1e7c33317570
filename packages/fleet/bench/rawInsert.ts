/**
 * Bench child process: the limit. A bare `node:http` server that reads the
 * body, takes its `eventId` with `JSON.parse`, runs one
 * `INSERT … ON CONFLICT (id, queue_name) DO NOTHING` into `raw_events` (a
 * copy of the queue's table, its indexes included) through `@effect/sql-pg`'s
 * client, and answers 200. No signature check, no schema, no queue: the raw
 * cost of storing a delivery behind HTTP. Prints `ready <url>`. Reads
 * `DATABASE_URL` and `BENCH_POOL`.
 */
import { PgClient } from "@effect/sql-pg"
import { createServer } from "node:http"
import { Effect, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"

const program = Effect.gen(function*() {
  const sql = yield* PgClient.make({
    url: Redacted.make(process.env["DATABASE_URL"] ?? ""),
    maxConnections: Number(process.env["BENCH_POOL"] ?? 10)
  })
  const insert = (id: string, element: string) =>
    Effect.runPromise(sql`
      INSERT INTO raw_events (id, queue_name, element, state, attempts, visible_at, created_at, updated_at)
      VALUES (${id}, 'default', ${element}, 'pending', 0, NOW(), NOW(), NOW())
      ON CONFLICT (id, queue_name) DO NOTHING
    `)
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      insert((JSON.parse(body) as { eventId: string }).eventId, body).then(
        () => response.writeHead(200, { "content-type": "application/json" }).end("{}"),
        (error: unknown) => response.writeHead(500).end(String(error))
      )
    })
  })
  yield* Effect.callback<void>((resume) => {
    server.listen(0, "127.0.0.1", () => resume(Effect.void))
  })
  const address = server.address()
  process.stdout.write(`ready http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/webhooks\n`)
  return yield* Effect.never
})

Effect.runPromise(Effect.scoped(program).pipe(Effect.provide(Reactivity.layer))).catch((error) => {
  console.error(error)
  process.exit(1)
})
