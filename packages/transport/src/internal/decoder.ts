/**
 * The decoder of response bodies: the result of `Schema.decodeUnknownExit`,
 * reached faster for a value that decodes. Effect's public API only;
 * `test/Decoder.test.ts` checks it against Effect's decoder.
 *
 * @internal
 */
import { Exit, Schema, SchemaAST } from "effect"
import * as Common from "@connected-vehicle/schema/Common"

/**
 * `Schema.decodeUnknownExit(schema)`, with a fast path compiled once from the
 * schema's AST: a value that decodes is walked by plain functions (no `Exit`
 * per field, no generator per struct with rest members), and gives the same
 * value as Effect's decoder (same keys in the same order, same
 * transformations and checks). Any value the fast path does not accept, and
 * any part of a schema it does not cover (suspensions, declarations with type
 * parameters, effectful or optional transformations, `oneOf` unions,
 * overlapping unions of transformed members), goes to Effect's decoder, so
 * failures, their messages and their paths are Effect's own.
 *
 * Meant for what `JSON.parse` returns (the response bodies of the service);
 * any other input is decoded too, with the same result.
 *
 * @internal
 */
export const decodeUnknownExit = <S extends Schema.Top>(
  schema: S
): (input: unknown) => Exit.Exit<S["Type"], Schema.SchemaError> => {
  const general = Schema.decodeUnknownExit(schema as unknown as Schema.Codec<S["Type"], unknown>)
  const compiled = compile(schema.ast)
  if (!compiled.native) return general
  const fast = compiled.fast
  return (input) => {
    let value: unknown
    try {
      value = fast(input)
    } catch {
      // a transformation or check that throws: Effect's decoder reports it
      return general(input)
    }
    return value === invalid ? general(input) : Exit.succeed(value as S["Type"])
  }
}

/** What a fast decoder returns for a value it does not accept. */
const invalid: unique symbol = Symbol("@connected-vehicle/transport/decoder/invalid")

type Fast = (input: unknown) => unknown

interface Compiled {
  readonly fast: Fast
  /**
   * Compiled here, not handed to Effect's decoder: an absent key stays absent
   * through it (only `Transform` and `Passthrough` links), and its output does
   * not depend on which union member Effect would try first.
   */
  readonly native: boolean
  /** The runtime types it can accept (`undefined`: any). */
  readonly accepts: ReadonlySet<string> | undefined
  /** It returns its input unchanged whenever it accepts it (no encoding, leaves and unions of them). */
  readonly identity: boolean
}

const cache = new WeakMap<SchemaAST.AST, Compiled>()

/** The check of a plain leaf as an expression of `v`, for generated code. */
const inlined = new WeakMap<Compiled, string>()

const compile = (ast: SchemaAST.AST): Compiled => {
  let compiled = cache.get(ast)
  if (compiled === undefined) {
    compiled = compileNode(ast) ?? delegate(ast)
    cache.set(ast, compiled)
  }
  return compiled
}

/** A node Effect's decoder decodes (its success value, else `invalid`). */
const delegate = (ast: SchemaAST.AST): Compiled => {
  let decode: ((input: unknown) => Exit.Exit<unknown, Schema.SchemaError>) | undefined
  return {
    fast: (input) => {
      const exit = (decode ??= Schema.decodeUnknownExit(Schema.make(ast) as Schema.Codec<unknown, unknown>))(input)
      return Exit.isSuccess(exit) ? exit.value : invalid
    },
    native: false,
    accepts: undefined,
    identity: false
  }
}

const runtimeType = (u: unknown): string => u === null ? "null" : Array.isArray(u) ? "array" : typeof u

const leaf = (accepts: string, test: (u: unknown) => boolean, inline?: string): Compiled => {
  const compiled: Compiled = {
    fast: (input) => test(input) ? input : invalid,
    native: true,
    accepts: new Set([accepts]),
    identity: true
  }
  if (inline !== undefined) inlined.set(compiled, inline)
  return compiled
}

const isString = (u: unknown) => typeof u === "string"
const isNumber = (u: unknown) => typeof u === "number"
const isBoolean = (u: unknown) => typeof u === "boolean"

/** The node by its tag, then its checks, then its encoding; `undefined` when Effect's decoder must do it. */
const compileNode = (ast: SchemaAST.AST): Compiled | undefined => {
  if ("encodingChecks" in ast && ast.encodingChecks !== undefined) return undefined
  const fromString = decodeString(ast)
  if (fromString !== undefined) return fromString
  const base = compileBase(ast)
  if (base === undefined) return undefined
  const checked = ast.checks === undefined ? base : withChecks(base, ast)
  return ast.encoding === undefined ? checked : withEncoding(checked, ast.encoding)
}

/**
 * A node whose decoding from a string its schema also gives as one function
 * (the schema package's `DecodeString` annotation, `Timestamp`'s): taken only
 * on the very node it was given for (the same `encoding`, no checks of its
 * own), so a schema derived with other checks or another encoding is
 * compiled as any other.
 */
const decodeString = (ast: SchemaAST.AST): Compiled | undefined => {
  const spec = ast.annotations?.[Common.DecodeString] as Common.DecodeString | undefined
  if (spec === undefined || typeof spec.decode !== "function" || spec.encoding === undefined) return undefined
  if (ast.encoding !== spec.encoding || ast.checks !== undefined) return undefined
  const decode = spec.decode
  return {
    fast: (input) => {
      if (typeof input !== "string") return invalid
      const value = decode(input)
      return value === undefined ? invalid : value
    },
    native: true,
    accepts: new Set(["string"]),
    identity: false
  }
}

const compileBase = (ast: SchemaAST.AST): Compiled | undefined => {
  switch (ast._tag) {
    case "String":
      return leaf("string", isString, "typeof v === \"string\"")
    case "Number":
      return leaf("number", isNumber, "typeof v === \"number\"")
    case "Boolean":
      return leaf("boolean", isBoolean, "typeof v === \"boolean\"")
    case "Null":
      return leaf("null", (u) => u === null, "v === null")
    case "Undefined":
      return leaf("undefined", (u) => u === undefined, "v === undefined")
    case "Literal": {
      const literal = ast.literal
      // strings and finite numbers as source (a bigint literal is checked by its function)
      const source = typeof literal === "string" || (typeof literal === "number" && Number.isFinite(literal)) ||
          typeof literal === "boolean"
        ? `v === ${JSON.stringify(literal)}`
        : undefined
      return leaf(runtimeType(literal), (u) => u === literal, source)
    }
    case "Unknown":
    case "Any":
      return { fast: (input) => input, native: true, accepts: undefined, identity: true }
    case "Objects":
      return objects(ast)
    case "Arrays":
      return arrays(ast)
    case "Union":
      return union(ast)
    case "Declaration":
      return declaration(ast)
    default:
      return undefined
  }
}

/** Every filter of the node's checks passes (what Effect's `collectIssues` finds no issue in). */
const withChecks = (base: Compiled, ast: SchemaAST.AST): Compiled => {
  const filters: Array<SchemaAST.Filter<unknown>> = []
  const flatten = (checks: ReadonlyArray<SchemaAST.Check<unknown>>) => {
    for (const check of checks) {
      if (check._tag === "FilterGroup") flatten(check.checks)
      else filters.push(check)
    }
  }
  flatten(ast.checks!)
  const fast = base.fast
  const options: SchemaAST.ParseOptions = {}
  return {
    ...base,
    fast: (input) => {
      const value = fast(input)
      if (value === invalid) return invalid
      for (let i = 0; i < filters.length; i++) {
        // an issue fails the value (what Effect's `collectIssues` tests)
        if (filters[i]!.run(value, ast, options)) return invalid
      }
      return value
    }
  }
}

/**
 * The encoded side first (the last link's `to`), then each link's decoding
 * toward the node, as Effect's interpreter runs them; only synchronous
 * `Transform` and `Passthrough` getters.
 */
const withEncoding = (local: Compiled, links: SchemaAST.Encoding): Compiled | undefined => {
  const steps: Array<{ readonly transform: ((u: unknown) => unknown) | undefined; readonly parse: Fast }> = []
  let native = local.native
  // what the input must be: the encoded side, the last link's `to`
  let accepts: ReadonlySet<string> | undefined
  for (let i = links.length - 1; i >= 0; i--) {
    const transformation = links[i]!.transformation
    if (transformation._tag !== "Transformation") return undefined
    const getter = transformation.decode
    if (getter._tag !== "Transform" && getter._tag !== "Passthrough") return undefined
    const to = compile(links[i]!.to)
    if (i === links.length - 1) accepts = to.accepts
    native &&= to.native
    steps.push({ transform: getter._tag === "Transform" ? getter.transform : undefined, parse: to.fast })
  }
  const last = local.fast
  return {
    fast: (input) => {
      let value: unknown = input
      for (let i = 0; i < steps.length; i++) {
        const step = steps[i]!
        value = step.parse(value)
        if (value === invalid) return invalid
        if (step.transform !== undefined) value = step.transform(value)
      }
      return last(value)
    },
    native,
    accepts,
    identity: false
  }
}

/**
 * A declaration without type parameters (`DateTime.Utc`, for one): its own
 * parser (`SchemaAST.Declaration.run`), when it answers at once with a
 * value. A success holding a symbol is a marker of Effect's own (`Schema.Json`
 * answers "the input, unchanged" so): Effect's decoder of the declaration
 * gives the value then.
 */
const declaration = (ast: SchemaAST.Declaration): Compiled | undefined => {
  if (ast.typeParameters.length !== 0) return undefined
  let run: ReturnType<SchemaAST.Declaration["run"]> | undefined
  const general = delegate(ast).fast
  const options: SchemaAST.ParseOptions = {}
  return {
    fast: (input) => {
      const result = (run ??= ast.run(ast.typeParameters))(input, ast, options)
      // an effect that is not an exit yet: Effect's decoder decides
      if (!Exit.isExit(result) || !Exit.isSuccess(result)) return invalid
      return typeof result.value === "symbol" ? general(input) : result.value
    },
    native: true,
    accepts: undefined,
    identity: false
  }
}

const assign = (out: Record<string, unknown>, key: string, value: unknown) => {
  if (key === "__proto__") Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true })
  else out[key] = value
}

/** A struct (declared keys, `key in input` as Effect reads them) with at most one string-keyed rest record. */
const objects = (ast: SchemaAST.Objects): Compiled | undefined => {
  if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) return undefined
  const properties: Array<{ readonly name: string; readonly optional: boolean; readonly type: Compiled }> = []
  for (const property of ast.propertySignatures) {
    if (typeof property.name !== "string") return undefined
    properties.push({ name: property.name, optional: SchemaAST.isOptional(property.type), type: compile(property.type) })
  }
  if (ast.indexSignatures.length > 1) return undefined
  const index = ast.indexSignatures[0]
  // Effect reads `Object.keys` for exactly this parameter
  if (index !== undefined && index.parameter !== SchemaAST.string) return undefined
  const rest = index === undefined ? undefined : compile(index.type)
  const declared = new Set(properties.map((property) => property.name))
  return {
    fast: generated(properties, rest, declared) ?? ((input) => {
      if (typeof input !== "object" || input === null || Array.isArray(input)) return invalid
      const record = input as Record<string, unknown>
      const out: Record<string, unknown> = {}
      for (let i = 0; i < properties.length; i++) {
        const property = properties[i]!
        const name = property.name
        if (!(name === "__proto__" ? Object.hasOwn(record, name) : name in record)) {
          // absent: left out when optional and nothing would make a value of it
          if (property.optional && property.type.native) continue
          return invalid
        }
        const value = property.type.fast(record[name])
        if (value === invalid) return invalid
        assign(out, name, value)
      }
      return rest === undefined ? out : withRest(record, out, rest.fast, declared)
    }),
    native: true,
    accepts: new Set(["object"]),
    identity: false
  }
}

/**
 * The members of a rest record: every key of `Object.keys` is checked by the
 * record's schema (a declared one too, as Effect does: its value must also be
 * one of the record's); the keys not declared are added, in their order.
 */
const withRest = (record: Record<string, unknown>, out: Record<string, unknown>, rest: Fast, declared: ReadonlySet<string>) => {
  const keys = Object.keys(record)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const value = rest(record[key])
    if (value === invalid) return invalid
    if (!declared.has(key)) assign(out, key, value)
  }
  return out
}

/**
 * The struct's decoder as code of its own (`new Function`), so that every
 * property is read by its constant name and plain leaves are checked inline:
 * one shared loop over the properties of every struct turns megamorphic.
 * `undefined` where code cannot be generated (a runtime that forbids it, or a
 * `__proto__` property): the loop above does it.
 */
const generated = (
  properties: ReadonlyArray<{ readonly name: string; readonly optional: boolean; readonly type: Compiled }>,
  rest: Compiled | undefined,
  declared: ReadonlySet<string>
): Fast | undefined => {
  if (declared.has("__proto__")) return undefined
  const lines: Array<string> = [
    "return function(input) {",
    "if (typeof input !== \"object\" || input === null || Array.isArray(input)) return invalid",
    "const out = {}",
    "let v"
  ]
  properties.forEach((property, i) => {
    const key = JSON.stringify(property.name)
    const absent = property.optional && property.type.native ? "" : " else return invalid"
    const inline = inlined.get(property.type)
    lines.push(
      inline === undefined
        ? `if (${key} in input) { v = fasts[${i}](input[${key}]); if (v === invalid) return invalid; out[${key}] = v }${absent}`
        : `if (${key} in input) { v = input[${key}]; if (!(${inline})) return invalid; out[${key}] = v }${absent}`
    )
  })
  lines.push(rest === undefined ? "return out" : "return withRest(input, out, rest, declared)", "}")
  try {
    return new Function("invalid", "fasts", "rest", "declared", "withRest", lines.join("\n"))(
      invalid,
      properties.map((property) => property.type.fast),
      rest?.fast,
      declared,
      withRest
    ) as Fast
  } catch {
    return undefined
  }
}

/** A homogeneous array (`Schema.Array(item)`). */
const arrays = (ast: SchemaAST.Arrays): Compiled | undefined => {
  if (ast.elements.length !== 0 || ast.rest.length !== 1) return undefined
  const item = compile(ast.rest[0]!).fast
  return {
    fast: (input) => {
      if (!Array.isArray(input)) return invalid
      const out = new Array(input.length)
      for (let i = 0; i < input.length; i++) {
        const value = item(input[i])
        if (value === invalid) return invalid
        out[i] = value
      }
      return out
    },
    native: true,
    accepts: new Set(["array"]),
    identity: false
  }
}

/**
 * An `anyOf` union whose result does not depend on which member accepts:
 * members that return their input, or members that accept disjoint runtime
 * types (at most one can accept a value).
 */
const union = (ast: SchemaAST.Union): Compiled | undefined => {
  if (ast.options?.mode === "oneOf" || ast.types.length === 0) return undefined
  const members = ast.types.map(compile)
  if (!members.every((member) => member.native)) return undefined
  const identity = members.every((member) => member.identity)
  const accepts = new Set<string>()
  for (const member of members) {
    if (member.accepts === undefined) {
      if (!identity) return undefined
      continue
    }
    for (const type of member.accepts) {
      if (accepts.has(type) && !identity) return undefined
      accepts.add(type)
    }
  }
  const fasts = members.map((member) => member.fast)
  return {
    fast: (input) => {
      for (let i = 0; i < fasts.length; i++) {
        const value = fasts[i]!(input)
        if (value !== invalid) return value
      }
      return invalid
    },
    native: true,
    accepts: members.some((member) => member.accepts === undefined) ? undefined : accepts,
    identity
  }
}
