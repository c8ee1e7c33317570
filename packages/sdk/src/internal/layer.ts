/**
 * The Promise client's options as the layer of the Effect SDK that runs its
 * calls (`ConnectedVehicle.layer`), with the token store and the logger the
 * options name. Bad options throw an `InvalidArgumentError`.
 */
import { Effect, Layer, Logger, Option, Redacted, References } from "effect"
import type { LogLevel } from "effect"
import * as TokenStore from "@connected-vehicle/auth/TokenStore"
import { InvalidArgument } from "@connected-vehicle/schema/InvalidArgument"
import type { UnitSystem } from "@connected-vehicle/schema/Legacy"
import * as TransportConfig from "@connected-vehicle/transport/TransportConfig"
import type { AsyncTokenStore, ClientOptions, LogEntry } from "../ClientOptions.ts"
import { InvalidArgumentError } from "../ClientError.ts"
import * as ConnectedVehicle from "../ConnectedVehicle.ts"
import { attemptsOf, checkClientOptions, deprecationWarningsOf, invalid, logLevelOf, millisOf, throwIfInvalid, unknownKeyOf, unreadable } from "./options.ts"

/**
 * What a client is made of: its layer, and the options its methods read.
 *
 * @internal
 */
export interface Settings {
  readonly layer: Layer.Layer<ConnectedVehicle.Services>
  readonly userKey: string
  readonly redirectUri: string | undefined
  /** The legacy reads' unit system, also the migrated reads' (a drop-in replacement). */
  readonly unitSystem: UnitSystem | undefined
}

/**
 * The client's settings; bad options throw an `InvalidArgumentError`: the
 * checks' own, the transport's `InvalidArgument` for a field of the
 * `transport` option (`transport.retry: null`...) named with its path
 * (`transport.retry`), and options that cannot be read (a getter or a Proxy
 * that throws) naming `options`. The options are read once, first: only
 * those reads are the caller's unreadable options; anything else thrown
 * after is a fault of the SDK and is thrown as it is.
 *
 * @internal
 */
export const settingsOf = (options: ClientOptions): Settings => settingsUnchecked(readOptions(options))

/** The transport's own checks of the `transport` option (`TransportConfig.make`), its fields named with their path. */
const checkTransport = (roots: TransportConfig.Roots, transport: ClientOptions["transport"]): void => {
  // the client's own `origin` or `roots` say where it sends: a `roots` here would be ignored
  if (typeof transport === "object" && transport !== null && Object.hasOwn(transport, "roots")) {
    throw invalid("transport.roots", "not an option of the client's transport (give createClient its origin or roots)")
  }
  try {
    TransportConfig.make({ ...transport, roots })
  } catch (error) {
    if (error instanceof InvalidArgument) {
      throw new InvalidArgumentError({ message: `transport.${error.message}`, field: `transport.${error.field}`, cause: error })
    }
    throw error
  }
}

const shallowCopy = <A>(value: A): A =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? { ...value } : value

type OptionKey = keyof Extract<ClientOptions, { readonly origin: string }> | keyof Extract<ClientOptions, { readonly roots: unknown }>

/** Every field of `ClientOptions` (a missing one is a type error), read once each. */
const optionKeys = Object.keys(
  {
    clientId: true,
    clientSecret: true,
    httpClient: true,
    logLevel: true,
    logger: true,
    maxRetries: true,
    origin: true,
    redirectUri: true,
    roots: true,
    timeout: true,
    tokenStore: true,
    transport: true,
    unitSystem: true,
    userKey: true
  } satisfies { readonly [K in OptionKey]: true }
)

/** The caller's options read once (the `transport` and `roots` objects one level down), else an `InvalidArgumentError`. */
const readOptions = (options: ClientOptions): ClientOptions => {
  if (typeof options !== "object" || options === null) throw invalid("options", "Expected an object")
  let unknown: InvalidArgumentError | undefined
  try {
    // a misspelt option would be ignored (`{ orign: ... }` on the default origin)
    unknown = unknownKeyOf(options, optionKeys)
  } catch {
    throw unreadable("options")
  }
  if (unknown !== undefined) throw unknown
  try {
    const read: Record<string, unknown> = {}
    for (const key of optionKeys) read[key] = (options as Readonly<Record<string, unknown>>)[key]
    const given = shallowCopy(read["transport"]) as ClientOptions["transport"] | null
    read["transport"] = given === undefined || given === null || typeof given !== "object" ? given : {
      ...given,
      retry: shallowCopy(given.retry),
      rateLimit: shallowCopy(given.rateLimit),
      requestIdHeader: Array.isArray(given.requestIdHeader) ? [...given.requestIdHeader] : given.requestIdHeader
    }
    read["roots"] = shallowCopy(read["roots"])
    return read as ClientOptions
  } catch {
    throw unreadable("options")
  }
}

const settingsUnchecked = (options: ClientOptions): Settings => {
  const roots = throwIfInvalid(checkClientOptions(options))
  const clientSecret = Redacted.isRedacted(options.clientSecret) ? options.clientSecret : Redacted.make(options.clientSecret)
  const timeoutMillis = options.timeout === undefined ? undefined : throwIfInvalid(millisOf("timeout", options.timeout))
  const maxAttempts = options.maxRetries === undefined ? undefined : throwIfInvalid(attemptsOf("maxRetries", options.maxRetries))
  const userKey = options.userKey ?? "user"
  const store = options.tokenStore === undefined
    ? undefined
    : Layer.isLayer(options.tokenStore)
    ? options.tokenStore as Layer.Layer<TokenStore.TokenStore>
    : tokenStoreLayer(options.tokenStore as AsyncTokenStore)
  const transport = options.transport
  checkTransport(roots, transport)
  const logLevel = throwIfInvalid(logLevelOf(options, roots))
  const deprecationWarnings = throwIfInvalid(deprecationWarningsOf())
  if (options.logger !== undefined && typeof options.logger !== "function") throw invalid("logger", "Expected a function")
  if (options.httpClient !== undefined && !Layer.isLayer(options.httpClient)) {
    throw invalid("httpClient", "Expected a Layer of an HttpClient (e.g. FetchHttpClient.layer)")
  }
  const layer = ConnectedVehicle.layer({
    transport: {
      ...transport,
      roots,
      ...(timeoutMillis === undefined ? {} : { timeout: timeoutMillis }),
      ...(maxAttempts === undefined ? {} : { retry: { ...transport?.retry, maxAttempts } }),
      ...(logLevel === undefined ? {} : { logLevel })
    },
    oauth: { clientId: options.clientId, clientSecret, redirectUri: options.redirectUri },
    userKey,
    legacy: { unitSystem: options.unitSystem, deprecationWarnings },
    tokenStore: store,
    httpClient: options.httpClient
  }).pipe(Layer.provideMerge(loggerLayer(options.logger)))
  return { layer, userKey, redirectUri: options.redirectUri, unitSystem: options.unitSystem }
}

/** Whether a store's thrown value says it may pass by itself (`transient: true`, read without throwing). */
const isTransient = (error: unknown): boolean => {
  try {
    return typeof error === "object" && error !== null && (error as { readonly transient?: unknown }).transient === true
  } catch {
    return false
  }
}

const tokenStoreLayer = (store: AsyncTokenStore): Layer.Layer<TokenStore.TokenStore> => {
  const attempt = <A>(key: string, f: () => Promise<A>) =>
    Effect.tryPromise({
      try: f,
      // the store's own error message is not kept: it might quote a token; an
      // error that says it is `transient` (a connection blip) is retried by the call
      catch: (error) =>
        new TokenStore.TokenStoreError({
          key,
          reason: error instanceof Error ? error.name : "the store failed",
          ...(isTransient(error) ? { transient: true } : {})
        })
    })
  return Layer.succeed(TokenStore.TokenStore, {
    get: (key) => Effect.map(attempt(key, () => store.get(key)), Option.fromNullishOr),
    set: (key, token) => attempt(key, () => store.set(key, token)),
    remove: (key) => attempt(key, () => store.remove(key))
  })
}

const entryLevels: Partial<Record<LogLevel.LogLevel, LogEntry["level"]>> = {
  Trace: "debug",
  Debug: "debug",
  Info: "info",
  Warn: "warn",
  Error: "error",
  Fatal: "error"
}

/**
 * Where the client's log lines go: Effect's default logger on stderr (not
 * stdout, which belongs to the application), or the `logger` option.
 */
const loggerLayer = (logger: ((entry: LogEntry) => void) | undefined): Layer.Layer<never> =>
  logger === undefined
    ? Layer.succeed(Logger.LogToStderr, true)
    : Logger.layer([
      Logger.make((options) => {
        const message = Array.isArray(options.message) ? options.message.map(String).join(" ") : String(options.message)
        try {
          logger({
            level: entryLevels[options.logLevel] ?? "info",
            message,
            annotations: { ...options.fiber.getRef(References.CurrentLogAnnotations) },
            date: options.date
          })
        } catch {
          // a throwing logger must not fail the call that logged
        }
      })
    ])
