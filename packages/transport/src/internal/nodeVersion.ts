/**
 * Refuses an unsupported Node.js with a clear error, before undici is
 * loaded: undici 8 needs Node.js 22.19 (the `engines` of every package) and,
 * on an older Node, fails while it loads with an unrelated `TypeError`.
 * `UndiciHttpClient` imports this module first, for its side effect (listed
 * in the package's `sideEffects`, so that bundlers keep it). Runtimes other
 * than Node (Bun, Deno) are not checked.
 *
 * @internal
 */

/** The oldest supported Node.js, as `[major, minor]`. */
const minimum = [22, 19] as const

/**
 * The error for the runtime whose `process.versions` are `versions`, or
 * `undefined` when it is supported (or not Node).
 *
 * @internal
 */
export const unsupported = (versions: Readonly<Record<string, string | undefined>> | undefined): Error | undefined => {
  const node = versions?.["node"]
  if (node === undefined || versions?.["bun"] !== undefined || versions?.["deno"] !== undefined) return undefined
  const [major = 0, minor = 0] = node.split(".").map(Number)
  if (major > minimum[0] || (major === minimum[0] && minor >= minimum[1])) return undefined
  return new Error(
    `@connected-vehicle/transport needs Node.js ${minimum.join(".")} or later; this is Node ${node}`
  )
}

const error = unsupported(globalThis.process?.versions)
if (error !== undefined) throw error
