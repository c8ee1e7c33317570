/**
 * The command tree of the sample (`effect/cli`): the guided tour when no
 * command is given, one command per service area, `login` and `export`.
 * Every command takes the shared flags `--json`, `--target`, `--client-id`,
 * `--client-secret` and `--token-file`, before or after its name.
 *
 * @since 0.1.0
 */
import { Config, Console, DateTime, Effect, FileSystem, Layer, Option, Redacted, Stream } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { ModeValues, PowertrainTypeValues, RegionValues } from "@connected-vehicle/schema/Common"
import type { LegacyPath, UnitSystem } from "@connected-vehicle/schema/Legacy"
import type * as Vehicles from "@connected-vehicle/legacy-v2/Vehicles"
import * as Export from "./Export.ts"
import * as Progress from "./Progress.ts"
import * as Report from "./Report.ts"
import type * as Sdk from "./Sdk.ts"
import { SampleError } from "./SampleError.ts"
import { keyValues } from "./Table.ts"

/**
 * The SDK and everything the handlers need, loaded when a handler runs:
 * `--help` and parse errors never load it (nor the simulator, which the
 * embedded target loads itself on first use).
 */
type Lazy = typeof import("./internal/sdk.ts")
const lazy: Effect.Effect<Lazy> = Effect.promise(() => import("./internal/sdk.ts"))

// ---------------------------------------------------------------------------
// Shared flags
// ---------------------------------------------------------------------------

const shared = {
  json: Flag.Boolean("json").pipe(
    Flag.withDescription("Print machine-readable JSON on stdout instead of tables"),
    Flag.withDefault(false)
  ),
  target: Flag.String("target").pipe(
    Flag.withDescription(
      "Origin (http or https URL) of another simulator or deployment serving every root (env CONNECTED_VEHICLE_ORIGIN); default: the embedded simulator"
    ),
    Flag.withFallbackConfig(Config.String("CONNECTED_VEHICLE_ORIGIN")),
    Flag.mapTryCatch(
      (value) => {
        const url = new URL(value)
        if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(url.protocol)
        return value
      },
      () => "--target must be an http:// or https:// URL, e.g. http://127.0.0.1:8080"
    ),
    Flag.optional
  ),
  clientId: Flag.String("client-id").pipe(
    Flag.withDescription("Application client id for a remote target (env CONNECTED_VEHICLE_CLIENT_ID)"),
    Flag.withFallbackConfig(Config.String("CONNECTED_VEHICLE_CLIENT_ID")),
    Flag.optional
  ),
  clientSecretFile: Flag.String("client-secret-file").pipe(
    Flag.withDescription(
      "File holding the application client secret for a remote target (or env CONNECTED_VEHICLE_CLIENT_SECRET); there is no --client-secret flag: a secret on the command line shows in ps and the shell history"
    ),
    Flag.optional
  ),
  tokenFile: Flag.String("token-file").pipe(
    Flag.withDescription(
      "Where `login` stores the user's tokens, keyed by target and client id (env CONNECTED_VEHICLE_TOKEN_FILE; default for a remote target ~/.config/connected-vehicle/sample-tokens.json, for the embedded simulator memory)"
    ),
    Flag.optional
  )
}

const root = Command.make("sample").pipe(Command.withSharedFlags(shared))

type Shared = Command.Command.Config.Infer<typeof shared>

/**
 * Runs a command body with the SDK layers of the shared flags; a failure is
 * printed (JSON on stdout too with `--json`) and ends the process non-zero.
 */
const withSdk = <A, E, R>(body: (flags: Shared, M: Lazy) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(root, (flags) => Effect.flatMap(lazy, (M) => runWith(M, flags, (flags) => body(flags, M))))

/** The client secret: `--client-secret-file`, else `CONNECTED_VEHICLE_CLIENT_SECRET`. */
const clientSecretOf = (flags: Shared) =>
  Effect.gen(function*() {
    if (Option.isNone(flags.clientSecretFile)) return yield* Config.option(Config.Redacted("CONNECTED_VEHICLE_CLIENT_SECRET"))
    const file = flags.clientSecretFile.value
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError(() => new SampleError({ reason: `Cannot read the client secret file ${file}`, usage: true }))
    )
    return Option.some(Redacted.make(text.trim()))
  })

const sdkLayer = (M: Lazy, flags: Shared) =>
  Layer.unwrap(Effect.map(clientSecretOf(flags), (clientSecret) => M.Sdk.layer({ ...flags, clientSecret })))

const report = (json: boolean) => (error: unknown) =>
  Effect.gen(function*() {
    yield* Console.error(Report.render(error))
    if (json) yield* Console.log(JSON.stringify({ error: Report.describe(error) }, null, 2))
    return yield* Effect.fail(new Report.Reported(Report.exitCodeOf(error)))
  })

/** Like {@link withSdk} for commands that need no credential (the public compatibility listing). */
const withPublic = <A, E, R>(body: (flags: Shared, M: Lazy) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(root, (flags) =>
    Effect.flatMap(lazy, (M) =>
      body(flags, M).pipe(
        Effect.provide(M.Target.layerPublic({ ...flags, clientSecret: Option.none() })),
        Effect.catch(report(flags.json))
      )))

const runWith = <A, E, R>(M: Lazy, flags: Shared, body: (flags: Shared) => Effect.Effect<A, E, R>) =>
  body(flags).pipe(
    Effect.provide(sdkLayer(M, flags)),
    Effect.catch(report(flags.json))
  )

/**
 * Prints `value` as JSON with `--json`, else the human rendering.
 */
const output = (json: boolean, value: unknown, human: () => string) =>
  Console.log(json ? JSON.stringify(value, null, 2) : human())

const optionalValue = <A>(option: Option.Option<A>) => Option.getOrUndefined(option)

const page = Flag.Int("page").pipe(Flag.withDescription("Page number (>= 1)"), Flag.optional)
const pageSize = Flag.Int("page-size").pipe(Flag.withDescription("Page size (1 to 100)"), Flag.optional)
const mode = Flag.Literals("mode", ModeValues).pipe(Flag.withDescription("live or simulated"), Flag.optional)

// ---------------------------------------------------------------------------
// v3
// ---------------------------------------------------------------------------

const compat = Command.make("compat", {
  region: Flag.Literals("region", RegionValues).pipe(Flag.withDescription("US, CA or EUROPE"), Flag.optional),
  make: Flag.String("make").pipe(Flag.withDescription("Manufacturer (case-insensitive)"), Flag.optional),
  powertrain: Flag.Literals("powertrain", [...PowertrainTypeValues, "EV"]).pipe(
    Flag.withDescription("ICE, BEV, PHEV or EV (BEV and PHEV)"),
    Flag.optional
  )
}, (input) =>
  withPublic((flags, M) =>
    Effect.gen(function*() {
      const compatibility = yield* M.Compatibility
      const listing = yield* compatibility.list({
        region: optionalValue(input.region),
        make: optionalValue(input.make),
        powertrainType: optionalValue(input.powertrain)
      })
      yield* output(flags.json, listing, () =>
        [
          M.Render.compatibilityCounts(listing.data),
          "",
          M.Render.compatibilityEntries(listing.data),
          "",
          `${listing.data.length} entries`
        ].join("\n"))
    })
  )).pipe(
    Command.withDescription("The compatibility listing (no credential), filtered by region, make and powertrain"),
    Command.withExamples([{ command: "sample compat --region US --powertrain EV", description: "US electric vehicles" }])
  )

const connections = Command.make("connections", {
  user: Flag.String("user").pipe(Flag.withDescription("Filter by user id"), Flag.optional),
  vehicle: Flag.String("vehicle").pipe(Flag.withDescription("Filter by vehicle id"), Flag.optional),
  externalId: Flag.String("external-id").pipe(Flag.withDescription("Filter by the user's external id"), Flag.optional),
  mode,
  page,
  pageSize
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      const service = yield* M.Connections
      const result = yield* service.list({
        userId: optionalValue(input.user),
        vehicleId: optionalValue(input.vehicle),
        userExternalId: optionalValue(input.externalId),
        mode: optionalValue(input.mode),
        page: optionalValue(input.page),
        pageSize: optionalValue(input.pageSize)
      })
      yield* output(flags.json, result, () =>
        `${M.Render.connections(result.data)}\n\npage ${result.meta.pageNumber} (${result.data.length} of ${result.meta.totalCount} connections)`)
    })
  )).pipe(Command.withDescription("Connections of the application (application token)"))

/**
 * Every signal of a vehicle, page after page (each page fetched once).
 */
const allSignals = (M: Lazy, vehicleId: string, userId: string) =>
  Effect.gen(function*() {
    const signals = yield* M.Signals
    const pages = yield* Stream.runCollect(signals.pages({ vehicleId, userId, pageSize: 100 }))
    const first = pages[0]!
    return { vehicle: first.included.vehicle, meta: first.meta, data: pages.flatMap((p) => p.data) }
  })

const signals = Command.make("signals", {
  vehicle: Argument.String("vehicle").pipe(Argument.withDescription("Vehicle id")),
  user: Flag.String("user").pipe(Flag.withDescription("Id of the vehicle's user (sent as sc-user-id)")),
  code: Flag.String("code").pipe(Flag.withDescription("One signal code instead of every signal"), Flag.optional)
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      if (Option.isSome(input.code)) {
        const service = yield* M.Signals
        const one = yield* service.get({ vehicleId: input.vehicle, userId: input.user, code: input.code.value })
        return yield* output(flags.json, one, () => M.Render.signals([one.data]))
      }
      const all = yield* allSignals(M, input.vehicle, input.user)
      const v = all.vehicle.attributes
      yield* output(flags.json, all, () =>
        `Vehicle ${all.vehicle.id}: ${v.make} ${v.model} ${v.year} (${v.powertrainType}, ${v.mode})\n\n${
          M.Render.signals(all.data)
        }`)
    })
  )).pipe(
    Command.withDescription("Signals of a connected vehicle on behalf of its user, grouped; failed ones with their resolution"),
    Command.withExamples([{ command: "sample signals VEHICLE_ID --user USER_ID", description: "Every signal" }])
  )

/** `webhooks listen` (the receiver is loaded only when the command runs). */
const webhooksListen = Command.make("listen", {
  port: Flag.Int("port").pipe(
    Flag.withDescription("Port to listen on (0: any free port, printed on stderr)"),
    Flag.withDefault(4020)
  ),
  host: Flag.String("host").pipe(Flag.withDescription("Address to listen on"), Flag.withDefault("127.0.0.1")),
  secretFile: Flag.String("secret-file").pipe(
    Flag.withDescription(
      "File holding the webhook secret (the application's management token; or env CONNECTED_VEHICLE_WEBHOOK_SECRET); there is no --secret flag: a secret on the command line shows in ps and the shell history"
    ),
    Flag.optional
  )
}, (input) =>
  Effect.flatMap(root, (flags) =>
    Effect.promise(() => import("./Listen.ts")).pipe(
      Effect.flatMap((Listen) =>
        Effect.flatMap(Listen.secretOf(input.secretFile), (secret) =>
          Listen.run({ port: input.port, host: input.host, secret, json: flags.json }))
      ),
      Effect.catch(report(flags.json))
    ))).pipe(
    Command.withDescription(
      "Receive webhook deliveries: verify each signature, answer VERIFY, print each event as a table row (--json: one JSON line per event) until Ctrl-C"
    ),
    Command.withExamples([{
      command: "CONNECTED_VEHICLE_WEBHOOK_SECRET=... sample webhooks listen --port 4020 --json",
      description: "One JSON line per verified event"
    }])
  )

const webhooks = Command.make("webhooks", {
  name: Flag.String("name").pipe(Flag.withDescription("Name contains (case-insensitive)"), Flag.optional),
  callbackUri: Flag.String("callback-uri").pipe(Flag.withDescription("Callback URI contains"), Flag.optional),
  enabled: Flag.Boolean("enabled").pipe(Flag.withDescription("Only enabled (--enabled) or disabled (--no-enabled)"), Flag.optional),
  autoSubscribe: Flag.Boolean("auto-subscribe").pipe(Flag.withDescription("Filter by auto-subscribe"), Flag.optional),
  page,
  pageSize
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      const service = yield* M.Webhooks
      const result = yield* service.list({
        name: optionalValue(input.name),
        callbackUri: optionalValue(input.callbackUri),
        isEnabled: optionalValue(input.enabled),
        autoSubscribe: optionalValue(input.autoSubscribe),
        page: optionalValue(input.page),
        pageSize: optionalValue(input.pageSize)
      })
      yield* output(flags.json, result, () =>
        `${M.Render.webhooks(result.data)}\n\n${result.data.length} of ${result.meta.totalCount} webhooks`)
    })
  )).pipe(
    Command.withDescription("Webhooks of the application; `webhooks listen` receives their deliveries"),
    Command.withSubcommands([webhooksListen])
  )

const subscriptions = Command.make("subscriptions", {
  user: Flag.String("user").pipe(Flag.withDescription("Filter by user id"), Flag.optional),
  webhook: Flag.String("webhook").pipe(Flag.withDescription("Filter by webhook id"), Flag.optional),
  vehicle: Flag.String("vehicle").pipe(Flag.withDescription("Filter by vehicle id"), Flag.optional),
  mode,
  page,
  pageSize
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      const service = yield* M.Subscriptions
      const result = yield* service.list({
        userId: optionalValue(input.user),
        webhookId: optionalValue(input.webhook),
        vehicleId: optionalValue(input.vehicle),
        mode: optionalValue(input.mode),
        page: optionalValue(input.page),
        pageSize: optionalValue(input.pageSize)
      })
      yield* output(flags.json, result, () =>
        `${M.Render.subscriptions(result.data)}\n\npage ${result.meta.pageNumber} (${result.data.length} of ${result.meta.totalCount} subscriptions)`)
    })
  )).pipe(Command.withDescription("Subscriptions of the application"))

// ---------------------------------------------------------------------------
// Legacy v2.0 (user token)
// ---------------------------------------------------------------------------

const withUser = <A, E>(
  body: (flags: Shared, vehicles: Vehicles.Vehicles["Service"], M: Lazy) => Effect.Effect<A, E, Sdk.Services>
) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      // v2.0 sunsets on 2026-12-01: said once per command, on stderr (stdout holds the output)
      yield* Console.error(M.Migrate.notice)
      yield* M.Sdk.ensureUser
      return yield* body(flags, yield* M.Vehicles.Vehicles, M)
    })
  )

/** Unit labels of a reading's unit system (`sc-unit-system`). */
const unitsOf = {
  metric: { distance: "km", pressure: "kPa" },
  imperial: { distance: "miles", pressure: "psi" }
} as const

const vehicleArgument = Argument.String("vehicle").pipe(Argument.withDescription("Vehicle id"))

const legacyRead = <A>(
  name: string,
  description: string,
  read: (
    vehicles: Vehicles.Vehicles["Service"],
    id: string
  ) => Effect.Effect<{ readonly value: A; readonly unitSystem: UnitSystem }, Vehicles.ReadError>,
  human: (value: A, units: typeof unitsOf[UnitSystem], M: Lazy) => string
) =>
  Command.make(name, { vehicle: vehicleArgument }, (input) =>
    withUser((flags, vehicles, M) =>
      Effect.gen(function*() {
        const reading = yield* read(vehicles, input.vehicle)
        yield* output(flags.json, { vehicleId: input.vehicle, ...reading }, () => human(reading.value, unitsOf[reading.unitSystem], M))
      })
    )).pipe(Command.withDescription(description))

const legacyVehicles = Command.make("vehicles", {
  limit: Flag.Int("limit").pipe(Flag.withDescription("At most this many ids (1 to 50, default 10)"), Flag.optional),
  offset: Flag.Int("offset").pipe(Flag.withDescription("Start index"), Flag.optional)
}, (input) =>
  withUser((flags, vehicles) =>
    Effect.gen(function*() {
      const list = yield* vehicles.list({ limit: optionalValue(input.limit), offset: optionalValue(input.offset) })
      yield* output(flags.json, list, () =>
        `${list.vehicles.join("\n")}\n\n${list.vehicles.length} of ${list.paging.count} vehicles (offset ${list.paging.offset})`)
    })
  )).pipe(Command.withDescription("Vehicle ids the user connected (legacy list)"))

const batchPaths: ReadonlyArray<LegacyPath> = ["/odometer", "/location", "/vin", "/engine/oil", "/tires/pressure"]

const legacyBatch = Command.make("batch", {
  vehicle: vehicleArgument,
  paths: Flag.Literals("path", ["/odometer", "/location", "/vin", "/engine/oil", "/tires/pressure", "/service/history"]).pipe(
    Flag.withDescription("A path to request (repeat the flag); default: odometer, location, VIN, oil, tires"),
    Flag.atLeast(0)
  )
}, (input) =>
  withUser((flags, vehicles, M) =>
    Effect.gen(function*() {
      const paths = input.paths.length === 0 ? batchPaths : input.paths
      const result = yield* vehicles.batch(input.vehicle, paths as readonly [LegacyPath, ...Array<LegacyPath>])
      const entries = M.Tour.batchEntries(result, paths)
      yield* output(flags.json, { vehicleId: input.vehicle, entries }, () => M.Tour.renderBatch(entries))
    })
  )).pipe(Command.withDescription("Several legacy reads in one request, each with its own status"))

const legacy = Command.make("legacy").pipe(
  Command.withDescription(
    "DEPRECATED (v2.0 sunsets on 2026-12-01; see docs/migrating-to-v3.md and `migrate check`). Legacy v2.0 reads with the user's token (embedded simulator: consent flow run automatically; remote: run `login` first)"
  ),
  Command.withSubcommands([
    legacyVehicles,
    legacyRead("odometer", "Last known odometer (km, or miles for imperial)", (v, id) => v.odometer(id), (x, u) => `${x.distance} ${u.distance}`),
    legacyRead("location", "Last known location", (v, id) => v.location(id), (x) => `${x.latitude}, ${x.longitude}`),
    legacyRead("vin", "Vehicle identification number", (v, id) => v.vin(id), (x) => x.vin),
    legacyRead("oil", "Engine oil life remaining", (v, id) => v.engineOil(id), (x) => `${Math.round(x.lifeRemaining * 100)}% oil life remaining`),
    legacyRead("tires", "Tire pressure (kPa, or psi for imperial)", (v, id) => v.tirePressure(id), (x, u) =>
      keyValues([
        ["front left", `${x.frontLeft} ${u.pressure}`],
        ["front right", `${x.frontRight} ${u.pressure}`],
        ["back left", `${x.backLeft} ${u.pressure}`],
        ["back right", `${x.backRight} ${u.pressure}`]
      ])),
    legacyRead("service-history", "Service records (supported makes only)", (v, id) => v.serviceHistory(id), (records, _, M) =>
      records.length === 0 ? "No service records" : M.Tour.renderServiceHistory(records)),
    legacyBatch
  ])
)

// ---------------------------------------------------------------------------
// migrate (v2.0 -> v3)
// ---------------------------------------------------------------------------

const migrateCheck = Command.make("check", {
  vehicle: vehicleArgument,
  unitSystem: Flag.Literals("unit-system", ["metric", "imperial"]).pipe(
    Flag.withDescription("Unit system of both reads: metric (km, kPa) or imperial (miles, psi)"),
    Flag.withDefault("metric" as const)
  ),
  user: Flag.String("user").pipe(
    Flag.withDescription("The vehicle's user id for sc-user-id (default: found in the connections list)"),
    Flag.optional
  )
}, (input) =>
  withUser((flags, vehicles, M) =>
    Effect.gen(function*() {
      const report = yield* M.Migrate.check(vehicles, input.vehicle, {
        unitSystem: input.unitSystem,
        userId: optionalValue(input.user)
      })
      yield* output(flags.json, report, () => M.Migrate.render(report))
    })
  )).pipe(
    Command.withDescription(
      "Each legacy v2.0 read of a vehicle next to its v3 equivalent (Migration of @connected-vehicle/v3), and whether they agree"
    ),
    Command.withExamples([{ command: "sample migrate check <vehicle> --unit-system imperial", description: "compare in miles and psi" }])
  )

const migrate = Command.make("migrate").pipe(
  Command.withDescription("Moving from v2.0 (sunset 2026-12-01) to v3: see docs/migrating-to-v3.md"),
  Command.withSubcommands([migrateCheck])
)

// ---------------------------------------------------------------------------
// login
// ---------------------------------------------------------------------------

const login = Command.make("login", {
  port: Flag.Int("port").pipe(
    Flag.withDescription("Port of the local redirect listener on 127.0.0.1 (0: any free port; use the registered one for a real deployment)"),
    Flag.withDefault(0)
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
        timeoutMillis: Option.getOrUndefined(Option.map(input.timeout, (seconds) => seconds * 1000)),
        onConsentUrl: (url) =>
          Console.error(
            follow
              ? `Consent URL (followed automatically): ${url}`
              : `Open this URL in a browser to give consent:\n\n  ${url}\n\nWaiting for the redirect...`
          )
      })
      const file = target.embedded && Option.isNone(flags.tokenFile)
        ? "(memory: the embedded simulator stops with this command)"
        : optionalValue(flags.tokenFile) ?? M.TokenFile.defaultPath()
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

// ---------------------------------------------------------------------------
// export
// ---------------------------------------------------------------------------

const out = Flag.String("out").pipe(Flag.withDescription("File to write"))
const format = Flag.Literals("format", ["ndjson", "csv"]).pipe(
  Flag.withDescription("ndjson or csv (default: by the file extension, .csv is CSV)"),
  Flag.optional
)
const exportPageSize = Flag.Int("page-size").pipe(Flag.withDescription("Items per request (1 to 100)"), Flag.withDefault(100))

/** The pages of a v3 list (`pages` of the SDK) as export pages with the total for the progress bar. */
const exportPages = <A, E, R>(
  pages: Stream.Stream<{ readonly data: ReadonlyArray<A>; readonly meta: { readonly totalCount: number } }, E, R>
): Stream.Stream<Export.ExportPage<A>, E, R> => Stream.map(pages, (p) => ({ items: p.data, total: p.meta.totalCount }))

const exportConnections = Command.make("connections", {
  out,
  format,
  pageSize: exportPageSize,
  user: Flag.String("user").pipe(Flag.withDescription("Filter by user id"), Flag.optional),
  mode
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      const service = yield* M.Connections
      const fileFormat = Export.formatOf(input.out, optionalValue(input.format))
      const progress = yield* Progress.start("connections")
      const records = yield* Export.write({
        file: input.out,
        format: fileFormat,
        progress,
        pages: exportPages(
          service.pages({ pageSize: input.pageSize, userId: optionalValue(input.user), mode: optionalValue(input.mode) })
        ),
        csv: {
          headers: ["id", "userId", "userExternalId", "vehicleId", "make", "model", "year", "powertrainType", "mode", "permissions", "createdAt", "updatedAt"],
          row: (c) => [
            c.id,
            c.attributes.user.id,
            c.attributes.user.externalId,
            c.relationships.vehicle.data.id,
            c.attributes.vehicle.make,
            c.attributes.vehicle.model,
            c.attributes.vehicle.year,
            c.attributes.vehicle.powertrainType,
            c.attributes.vehicle.mode,
            c.attributes.permissions.join(" "),
            DateTime.formatIso(c.meta.createdAt),
            DateTime.formatIso(c.meta.updatedAt)
          ]
        }
      })
      const result = { file: input.out, format: fileFormat, records }
      yield* output(flags.json, result, () => `Wrote ${records} connections to ${input.out} (${fileFormat})`)
    })
  )).pipe(Command.withDescription("Stream every connection to a file, page by page, with a progress bar on stderr"))

const exportSignals = Command.make("signals", {
  vehicle: vehicleArgument,
  user: Flag.String("user").pipe(Flag.withDescription("Id of the vehicle's user")),
  out,
  format,
  pageSize: exportPageSize
}, (input) =>
  withSdk((flags, M) =>
    Effect.gen(function*() {
      const service = yield* M.Signals
      const fileFormat = Export.formatOf(input.out, optionalValue(input.format))
      const progress = yield* Progress.start("signals")
      const records = yield* Export.write({
        file: input.out,
        format: fileFormat,
        progress,
        pages: exportPages(service.pages({ vehicleId: input.vehicle, userId: input.user, pageSize: input.pageSize })),
        csv: {
          headers: ["vehicleId", "code", "name", "group", "status", "value", "unit", "errorType", "errorCode", "resolution", "retrievedAt"],
          row: (s) => [
            input.vehicle,
            s.attributes.code,
            s.attributes.name,
            s.attributes.group,
            s.attributes.status.value,
            s.attributes.body.value,
            s.attributes.body.unit,
            s.attributes.status.error?.type,
            s.attributes.status.error?.code,
            s.attributes.status.error?.resolution?.type,
            DateTime.formatIso(s.meta.retrievedAt)
          ]
        }
      })
      const result = { file: input.out, format: fileFormat, records }
      yield* output(flags.json, result, () => `Wrote ${records} signals to ${input.out} (${fileFormat})`)
    })
  )).pipe(Command.withDescription("Stream every signal of a vehicle to a file"))

const exportCommand = Command.make("export").pipe(
  Command.withDescription("Export a list to NDJSON or CSV (by --format or the file extension)"),
  Command.withSubcommands([exportConnections, exportSignals])
)

// ---------------------------------------------------------------------------
// The whole tree
// ---------------------------------------------------------------------------

/**
 * The CLI: `sample` alone runs the guided tour on the embedded simulator.
 *
 * @example
 * ```ts
 * import { Command } from "effect/cli"
 * import { cli } from "@connected-vehicle/sample/Cli"
 *
 * const run = Command.runWith(cli, { version: "0.1.0" })
 * ```
 * @since 0.1.0
 * @category commands
 */
export const cli = root.pipe(
  Command.withHandler((flags) => Effect.flatMap(lazy, (M) => runWith(M, flags, () => M.Tour.run(flags.json)))),
  Command.withDescription(
    "Connected-vehicle SDK sample. Without a command: a guided tour of the whole service on the embedded simulator."
  ),
  Command.withSubcommands([compat, connections, signals, webhooks, subscriptions, legacy, migrate, login, exportCommand]),
  Command.withExamples([
    { command: "sample", description: "The guided tour on the embedded simulator" },
    { command: "sample connections --json", description: "Connections as JSON" },
    {
      command: "sample --target https://api.example.com --client-id ID --client-secret-file ./secret webhooks",
      description: "Talk to another server"
    }
  ])
)
