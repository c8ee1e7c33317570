/**
 * The loopback fixture of the Promise client tests: a simulator on 127.0.0.1
 * behind a TCP proxy that records every connection (to see the client close
 * one) and every byte (to collect the secrets that crossed the wire), and the
 * helpers the tests share. A test file calls {@link useLoopback} once.
 */
import { afterAll, assert, beforeAll } from "@effect/vitest"
import { Effect, ManagedRuntime, Redacted } from "effect"
import * as net from "node:net"
import * as util from "node:util"
import * as Simulator from "@connected-vehicle/simulator/Simulator"
import * as Client from "@connected-vehicle/sdk/Client"

export const redirectUri = "https://app.example/callback"

export interface Connection {
  readonly id: number
  /** What the client sent and received on it. */
  sent: string
  received: string
  /** Resolves when the client's side of the connection is closed. */
  readonly closed: Promise<void>
}

/** A TCP proxy in front of `target`, recording connections and bytes. */
const startProxy = async (target: URL) => {
  const connections: Array<Connection> = []
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    let onClose!: () => void
    const connection: Connection = {
      id: connections.length,
      sent: "",
      received: "",
      closed: new Promise<void>((resolve) => (onClose = resolve))
    }
    connections.push(connection)
    const upstream = net.connect(Number(target.port), target.hostname)
    sockets.add(socket).add(upstream)
    socket.on("data", (chunk: Buffer) => {
      connection.sent += chunk.toString("latin1")
      upstream.write(chunk)
    })
    upstream.on("data", (chunk: Buffer) => {
      connection.received += chunk.toString("latin1")
      socket.write(chunk)
    })
    socket.on("close", () => {
      onClose()
      upstream.destroy()
    })
    upstream.on("close", () => socket.destroy())
    socket.on("error", () => {})
    upstream.on("error", () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as net.AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    connections,
    /** Every token and credential that crossed the wire. */
    secrets: () => {
      const out = new Set<string>()
      for (const c of connections) {
        for (const m of c.sent.matchAll(/authorization: (?:Bearer|Basic) ([^\r\n]+)/gi)) out.add(m[1]!)
        for (const m of c.received.matchAll(/"(?:access_token|refresh_token)":"([^"]+)"/g)) out.add(m[1]!)
      }
      return out
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      })
  }
}

export let simRuntime: ManagedRuntime.ManagedRuntime<Simulator.Simulator, never>
export let sim: Simulator.Simulator["Service"]
export let proxy: Awaited<ReturnType<typeof startProxy>>
export let clientSecret: string

/**
 * Starts the simulator and the proxy before the file's tests (the exported
 * bindings above are set then) and stops them after.
 */
export const useLoopback = (): void => {
  beforeAll(async () => {
    simRuntime = ManagedRuntime.make(Simulator.layer({ port: 0 }))
    sim = await simRuntime.runPromise(Effect.service(Simulator.Simulator))
    clientSecret = Redacted.value(sim.clientSecret)
    proxy = await startProxy(new URL(sim.url))
  }, 60_000)

  afterAll(async () => {
    await proxy?.close()
    await simRuntime?.dispose()
  }, 60_000)
}

export const makeClient = (options?: Partial<Client.ClientOptions>) =>
  Client.createClient({
    clientId: sim.clientId,
    clientSecret,
    origin: proxy.origin,
    redirectUri,
    transport: { retry: { initialDelay: "5 millis", maxDelay: "20 millis" } },
    ...options
  } as Client.ClientOptions)

export const inject = (path: string, faults: ReadonlyArray<Simulator.Fault>) => simRuntime.runPromise(sim.injectFaults({ path, faults }))
export const requests = () => simRuntime.runPromise(sim.requests)

/** The code of the simulator's consent redirect for `userId` (not followed). */
export const consentCode = async (userId: string) => {
  const query = new URLSearchParams({ response_type: "code", client_id: sim.clientId, redirect_uri: redirectUri, login_hint: userId })
  const response = await fetch(`${sim.url}/oauth/authorize?${query}`, { redirect: "manual" })
  const code = new URL(response.headers.get("location") ?? "", sim.url).searchParams.get("code")
  assert.isNotNull(code, `consent for ${userId}: ${response.status}`)
  return code!
}

/** The error a promise rejects with (fails the test if it resolves). */
export const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  assert.fail("expected the call to reject")
}

export const collect = async <A>(iterable: AsyncIterable<A>): Promise<Array<A>> => {
  const out: Array<A> = []
  for await (const a of iterable) out.push(a)
  return out
}

/** The connection that carried a request matching `line` (waits for it: the request is then in flight). */
export const carrying = async (line: RegExp): Promise<Connection> => {
  for (;;) {
    const found = proxy.connections.find((c) => line.test(c.sent))
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

export const errorsSeen: Array<unknown> = []

/** The rejection, checked to be an instance of `classes`, and kept for the redaction test. */
export const expectError = async <C extends new(...args: any) => Client.ConnectedVehicleError>(
  promise: Promise<unknown>,
  first: C,
  ...also: ReadonlyArray<new(...args: any) => Client.ConnectedVehicleError>
): Promise<InstanceType<C>> => {
  const error = await rejection(promise)
  errorsSeen.push(error)
  for (const c of [first, ...also]) assert.instanceOf(error, c)
  assert.instanceOf(error, Client.ConnectedVehicleError)
  assert.instanceOf(error, Error)
  return error as InstanceType<C>
}

/**
 * Fails when a secret occurs in an error: its message, stack, cause chain,
 * JSON or `util.inspect` text.
 */
export const assertNoSecretIn = (errors: ReadonlyArray<unknown>, secrets: ReadonlySet<string>): void => {
  for (const error of errors) {
    const texts: Array<string> = [JSON.stringify(error), util.inspect(error, { depth: 20, showHidden: true })]
    for (let e: unknown = error; e !== undefined && e !== null; e = (e as { cause?: unknown }).cause) {
      texts.push(String(e), String((e as Error).message), String((e as Error).stack), util.inspect(e, { depth: 20 }))
      try {
        texts.push(JSON.stringify(e) ?? "")
      } catch {
        // a cycle: util.inspect covered it
      }
      if (texts.length > 400) break
    }
    for (const text of texts) {
      for (const secret of secrets) {
        assert.isFalse(text.includes(secret), `a secret in ${(error as Error).name}: ${text.slice(0, 200)}`)
      }
    }
  }
}
