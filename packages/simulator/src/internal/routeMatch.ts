/**
 * Path templates of the contract (`/vehicles/:vehicleId/signals`) compiled
 * into one regular expression: the routes' segments merged into a tree (a
 * shared prefix is matched once), each parameter a capture group with the
 * pattern its name is given, each route's end an empty capture group that
 * tells which route matched.
 *
 * @internal
 */

/** A route matched: the route and its parameters by name. */
export interface Matched<R> {
  readonly route: R
  readonly params: Readonly<Record<string, string>>
}

interface Node {
  readonly segment: string
  readonly children: Array<Node>
  route: number
}

const escape = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The segment tree of the templates; a template given twice is a defect. */
const treeOf = (paths: ReadonlyArray<string>): Node => {
  const root: Node = { segment: "", children: [], route: -1 }
  paths.forEach((path, i) => {
    let node = root
    for (const segment of path.split("/").slice(1)) {
      let next = node.children.find((child) => child.segment === segment)
      if (next === undefined) {
        next = { segment, children: [], route: -1 }
        node.children.push(next)
      }
      node = next
    }
    if (node.route !== -1) throw new Error(`The route ${path} is given twice`)
    node.route = i
  })
  return root
}

/**
 * Compiles the routes' path templates (`:name` a parameter, matched by
 * `patternOf(name)`, a pattern without capture groups) into a matcher of
 * whole paths. Done once: a match is one `exec` and a scan of the routes'
 * end groups.
 *
 * @internal
 */
export const compile = <R extends { readonly path: string }>(
  routes: ReadonlyArray<R>,
  patternOf: (param: string) => string
): (path: string) => Matched<R> | undefined => {
  if (routes.length === 0) return () => undefined
  let group = 0
  const ends: Array<number> = []
  const params: Array<ReadonlyArray<readonly [string, number]>> = []
  const open: Array<readonly [string, number]> = []
  const emit = (node: Node): string => {
    const alternatives = node.children.map((child) => {
      const param = child.segment.startsWith(":") ? child.segment.slice(1) : undefined
      if (param === undefined) return `/${escape(child.segment)}${emit(child)}`
      open.push([param, ++group])
      const text = `/(${patternOf(param)})${emit(child)}`
      open.pop()
      return text
    })
    if (node.route !== -1) {
      ends[node.route] = ++group
      params[node.route] = [...open]
      alternatives.push("()")
    }
    return alternatives.length === 1 ? alternatives[0]! : `(?:${alternatives.join("|")})`
  }
  const regex = new RegExp(`^${emit(treeOf(routes.map((route) => route.path)))}$`)
  const names = params.map((list) => list.map(([name]) => name))
  const groups = params.map((list) => list.map(([, at]) => at))
  return (path) => {
    const match = regex.exec(path)
    if (match === null) return undefined
    let i = 0
    while (match[ends[i]!] === undefined) i++
    const values: Record<string, string> = {}
    const name = names[i]!
    const group = groups[i]!
    for (let k = 0; k < name.length; k++) values[name[k]!] = match[group[k]!]!
    return { route: routes[i]!, params: values }
  }
}
