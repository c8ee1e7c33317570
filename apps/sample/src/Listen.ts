/**
 * Receiving webhooks: `webhooks listen` (a local receiver that prints each
 * verified event as a table row, or one JSON line with `--json`); the tour's
 * last step, which delivers one event of the embedded simulator to such a
 * receiver in the same process, is `TourDelivery`.
 *
 * The receiver is `@connected-vehicle/webhooks`' Node adapter: the
 * `SC-Signature` is checked over the raw bytes before anything is parsed, the
 * `VERIFY` handshake is answered by it, a retried delivery (same `eventId`)
 * is printed once, and a bad signature is answered 401 and reported on stderr.
 *
 * @since 0.1.0
 */
import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
import { isFailedSignal, WebhookEvent } from "@connected-vehicle/schema/WebhookEvent"
import * as NodeAdapter from "@connected-vehicle/webhooks/NodeAdapter"
import type { Secrets } from "@connected-vehicle/webhooks/Signature"
import { secretText } from "@connected-vehicle/schema/Redaction"
import { Cause, Console, Effect, FileSystem, Logger, Option, Redacted, Result, Schema } from "effect"
import type { Scope } from "effect"
import { createServer } from "node:http"
import type { Server } from "node:http"
import * as SampleConfig from "./SampleConfig.ts"
import { printable, printableJson } from "./Printable.ts"
import { SampleError } from "./SampleError.ts"
import { readSecretFile } from "./internal/secretInput.ts"
import { stdoutLines } from "./internal/stdout.ts"

/**
 * The environment variable holding the webhook secret (the application's
 * management token) when `--secret-file` is not given, read through
 * `SampleConfig.config` (its `webhookSecret`).
 *
 * @example
 * ```ts
 * import { SECRET_VARIABLE } from "@connected-vehicle/sample/Listen"
 *
 * const hint = `set ${SECRET_VARIABLE} or pass --secret-file`
 * ```
 * @since 0.1.0
 * @category configuration
 */
export const SECRET_VARIABLE = "CONNECTED_VEHICLE_WEBHOOK_SECRET"

/**
 * One received event, flattened for a table row.
 *
 * @example
 * ```ts
 * import { line } from "@connected-vehicle/sample/Listen"
 * import type { EventRow } from "@connected-vehicle/sample/Listen"
 *
 * const row: EventRow = { receivedAt: "12:00:01", eventType: "VEHICLE_STATE", eventId: "e-1", vehicleId: "v-1", detail: "odometer" }
 * const text = line(row)
 * ```
 * @since 0.1.0
 * @category models
 */
export interface EventRow {
  readonly receivedAt: string
  readonly eventType: string
  readonly eventId: string
  readonly vehicleId: string
  readonly detail: string
}

/**
 * The row of an event: its kind, ids, and what it says (the triggers and
 * signals of a `VEHICLE_STATE`, the errors of a `VEHICLE_ERROR`).
 *
 * @example
 * ```ts
 * import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
 * import { rowOf } from "@connected-vehicle/sample/Listen"
 *
 * const describe = (event: DeliveredEvent) => rowOf(event, new Date()).detail
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const rowOf = (event: DeliveredEvent, receivedAt: Date): EventRow => {
  const base = { receivedAt: receivedAt.toISOString(), eventId: event.eventId }
  switch (event.eventType) {
    case "VEHICLE_STATE": {
      const failed = event.data.signals.filter(isFailedSignal).length
      return {
        ...base,
        eventType: event.eventType,
        vehicleId: event.vehicleId,
        detail: `triggers=${event.data.triggers.map((t) => t.code).join(",")} signals=${event.data.signals.length}` +
          (failed > 0 ? ` (${failed} failed)` : "") + ` user=${event.data.user.id}`
      }
    }
    case "VEHICLE_ERROR":
      return {
        ...base,
        eventType: event.eventType,
        vehicleId: event.vehicleId,
        detail: event.data.errors.map((e) =>
          `${e.state} ${e.type}/${e.code}` + (e.resolution === undefined ? "" : ` (${e.resolution.type})`)
        ).join("; ")
      }
    case "UNKNOWN":
      return { ...base, eventType: event.receivedEventType, vehicleId: "-", detail: "an event kind this SDK does not know" }
  }
}

const widths = { receivedAt: 24, eventType: 13, eventId: 36, vehicleId: 36 } as const

/**
 * The header of the streamed table (the columns have fixed widths: rows are
 * printed as events arrive).
 *
 * @example
 * ```ts
 * import { header } from "@connected-vehicle/sample/Listen"
 *
 * console.log(header())
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const header = (): string =>
  [
    line({ receivedAt: "RECEIVED AT", eventType: "EVENT", eventId: "EVENT ID", vehicleId: "VEHICLE", detail: "DETAIL" }),
    line({
      receivedAt: "-".repeat(widths.receivedAt),
      eventType: "-".repeat(widths.eventType),
      eventId: "-".repeat(widths.eventId),
      vehicleId: "-".repeat(widths.vehicleId),
      detail: "------"
    })
  ].join("\n")

/**
 * One row of the streamed table.
 *
 * @example
 * ```ts
 * import { line } from "@connected-vehicle/sample/Listen"
 *
 * line({ receivedAt: "2025-08-26T10:00:00.000Z", eventType: "VEHICLE_STATE", eventId: "evt_1", vehicleId: "v-1", detail: "" })
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const line = (row: EventRow): string =>
  [
    printable(row.receivedAt).padEnd(widths.receivedAt),
    printable(row.eventType).padEnd(widths.eventType),
    printable(row.eventId).padEnd(widths.eventId),
    printable(row.vehicleId).padEnd(widths.vehicleId),
    printable(row.detail)
  ].join("  ").trimEnd()


const encodeEvent = Schema.encodeSync(WebhookEvent)

/**
 * An event as one line of JSON: the event in its wire form (as the service
 * sent it, `deliveredAt` as an ISO string), with the characters a terminal
 * acts on that `JSON.stringify` leaves as they are (C1 controls, DEL,
 * bidirectional formatting, line and paragraph separators) written as
 * `\uXXXX` escapes: the same JSON value, shown safely.
 *
 * @example
 * ```ts
 * import type { DeliveredEvent } from "@connected-vehicle/schema/WebhookEvent"
 * import { jsonLine } from "@connected-vehicle/sample/Listen"
 *
 * const print = (event: DeliveredEvent) => console.log(jsonLine(event))
 * ```
 * @since 0.1.0
 * @category rendering
 */
export const jsonLine = (event: DeliveredEvent): string => printableJson(JSON.stringify(encodeEvent(event)))

/**
 * Log lines of the receiver (rejected deliveries) on stderr, never stdout;
 * a cause as its errors' messages (no stack trace).
 */
const stderrLogger = Logger.make((options) => {
  const causes = Cause.prettyErrors(options.cause).map((error) => `${error.name}: ${error.message}`)
  const text = Logger.formatLogFmt.log({ ...options, cause: Cause.empty })
  // the message may quote the delivery (a body that is not JSON): shown escaped, as every line of the sample
  process.stderr.write(`${printable(`${text}${causes.length === 0 ? "" : ` cause=${JSON.stringify(causes.join("; "))}`}`)}\n`)
})

/**
 * Starts a receiver on `host:port` (port 0: any free port) for the scope:
 * every path accepts deliveries signed with `secret` (one, or several while
 * it is rotated: `[current, previous]`, see {@link secretsOf}); `onEvent` runs once per verified event
 * (`VERIFY` is answered by the receiver; an event whose `onEvent` fails is
 * answered 500, so the service retries it). Its URL is returned.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import * as Listen from "@connected-vehicle/sample/Listen"
 *
 * const program = Effect.scoped(Effect.gen(function*() {
 *   const { url } = yield* Listen.serve({ port: 0, secret: Redacted.make("token"), onEvent: (e) => Effect.log(e.eventId) })
 *   yield* Effect.log(`deliver to ${url}/webhooks`)
 * }))
 * ```
 * @since 0.1.0
 * @category constructors
 */
export const serve = (options: {
  readonly port: number
  readonly host?: string | undefined
  readonly secret: Secrets
  readonly onEvent: (event: DeliveredEvent) => Effect.Effect<void, SampleError>
}): Effect.Effect<{ readonly url: string }, SampleError, Scope.Scope> =>
  Effect.gen(function*() {
    const host = options.host ?? "127.0.0.1"
    const handler = NodeAdapter.make({
      secret: options.secret,
      handler: options.onEvent,
      layer: Logger.layer([stderrLogger])
    })
    const server: Server = createServer(handler)
    const port = yield* Effect.acquireRelease(
      Effect.callback<number, SampleError>((resume) => {
        const onError = (error: NodeJS.ErrnoException) =>
          resume(Effect.fail(
            new SampleError({ reason: `Cannot listen on ${host}:${options.port}: ${error.code ?? error.message}`, usage: error.code === "EACCES" })
          ))
        server.once("error", onError)
        server.listen(options.port, host, () => {
          server.off("error", onError)
          const address = server.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : options.port))
        })
      }),
      () =>
        Effect.promise(async () => {
          // the deliveries being answered get their answer (a second at most), then every connection is closed
          const closed = new Promise((resolve) => server.close(resolve))
          const idle = setInterval(() => server.closeIdleConnections(), 20)
          server.closeIdleConnections()
          const cut = setTimeout(() => server.closeAllConnections(), 1000)
          await closed
          clearInterval(idle)
          clearTimeout(cut)
          await handler.dispose()
        })
    )
    return { url: `http://${host.includes(":") ? `[${host}]` : host}:${port}` }
  })

/**
 * `webhooks listen`: serves until interrupted (Ctrl-C), printing each
 * verified event on stdout (a table row, or a JSON line with `json`); the
 * listening address and rejected deliveries go to stderr. An event is
 * acknowledged (200) once its line is written: when stdout is closed (the
 * reader of a pipe went away, `| head -n 1`), the event is answered 500 (the
 * service retries it), the receiver stops and the command ends, successfully
 * for a closed pipe (`EPIPE`), with a `SampleError` for any other write
 * error.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import * as Listen from "@connected-vehicle/sample/Listen"
 *
 * const program = Listen.run({ port: 4020, secret: Redacted.make("token"), json: true })
 * ```
 * @since 0.1.0
 * @category commands
 */
export const run = (options: {
  readonly port: number
  readonly host?: string | undefined
  readonly secret: Secrets
  readonly json: boolean
}): Effect.Effect<void, SampleError> =>
  Effect.scoped(Effect.gen(function*() {
    const stdout = yield* stdoutLines
    const { url } = yield* serve({
      ...options,
      onEvent: (event) => Effect.suspend(() => stdout.write(options.json ? jsonLine(event) : line(rowOf(event, new Date()))))
    })
    yield* Console.error(`Listening for webhook deliveries on ${url}/ (any path; Ctrl-C to stop)`)
    if (!options.json) yield* Effect.ignore(stdout.write(header()))
    const error = yield* stdout.ended
    if (error.code !== "EPIPE") {
      return yield* new SampleError({ reason: `Cannot write to stdout: ${error.code ?? error.message}` })
    }
    yield* Console.error("stdout was closed: stopped listening (the events not printed were answered 500, so the service retries them)")
  }))

// ---------------------------------------------------------------------------
// The tour's delivery
// ---------------------------------------------------------------------------

/**
 * The webhook secret from `--secret-file` or {@link SECRET_VARIABLE}, read as
 * the SDK and the simulator read theirs (`secretText` of
 * `@connected-vehicle/schema/Redaction`: without the white space around it); a usage
 * error when neither gives one, when the text is not UTF-8 or holds a control
 * character, or when the file cannot be read, is not a regular file (a
 * device such as `/dev/zero`, a named pipe: never opened) or is larger than
 * 64 KiB (not read further).
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import { secretOf } from "@connected-vehicle/sample/Listen"
 *
 * const secret = secretOf(Option.some("./webhook-secret"))
 * ```
 * @since 0.1.0
 * @category configuration
 */
export const secretOf = (
  file: Option.Option<string>
): Effect.Effect<Redacted.Redacted<string>, SampleError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    let text: string | undefined
    if (Option.isSome(file)) {
      text = yield* readSecretFile(file.value, "the webhook secret file")
    } else {
      const { webhookSecret } = yield* SampleConfig.config.pipe(
        Effect.mapError(() => new SampleError({ reason: `${SECRET_VARIABLE} cannot be read`, usage: true }))
      )
      text = Option.isSome(webhookSecret) ? Redacted.value(webhookSecret.value) : undefined
    }
    const checked = secretText(text ?? "")
    if (Result.isFailure(checked)) {
      // a file's text was checked as it was read: only the variable's can be refused here
      return yield* new SampleError({ reason: `${SECRET_VARIABLE} ${checked.failure}`, usage: true })
    }
    const secret = checked.success
    if (secret === "") {
      return yield* new SampleError({
        reason: Option.isSome(file)
          ? `The webhook secret file ${file.value} is empty`
          : `The webhook secret is needed: --secret-file FILE or ${SECRET_VARIABLE} (never a flag value: it would show in ps and the shell history)`,
        usage: true
      })
    }
    return Redacted.make(secret, { label: "webhook secret" })
  })

/**
 * The webhook secrets of `webhooks listen`: one per `--secret-file` (each
 * read and trimmed as {@link secretOf} does, the first the current one), so a
 * receiver accepts deliveries signed with any of them while the secret is
 * rotated (`--secret-file new --secret-file old`); with no file, the one of
 * {@link SECRET_VARIABLE}. One secret is answered as itself, several as the
 * array the webhooks package's receivers take.
 *
 * @example
 * ```ts
 * import { secretsOf } from "@connected-vehicle/sample/Listen"
 *
 * const rotating = secretsOf(["./webhook-secret.new", "./webhook-secret"])
 * ```
 * @since 0.3.0
 * @category configuration
 */
export const secretsOf = (
  files: ReadonlyArray<string>
): Effect.Effect<Secrets, SampleError, FileSystem.FileSystem> =>
  files.length <= 1
    ? secretOf(Option.fromUndefinedOr(files[0]))
    : Effect.forEach(files, (file) => secretOf(Option.some(file)))
