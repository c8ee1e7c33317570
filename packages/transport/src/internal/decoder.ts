/**
 * The decoder of response bodies: the result of `Schema.decodeUnknownExit`,
 * reached faster for a value that decodes. Effect's public API only;
 * `test/Decoder.test.ts` checks it against Effect's decoder.
 *
 * @internal
 */
import { Exit, Option, Schema, SchemaAST } from "effect"
import * as Common from "@connected-vehicle/schema/Common"
import { absent, type Compiled, type Fast, inlined, invalid, runtimeType } from "./decoderNode.ts"
import { decodedOnce } from "./decoderOnce.ts"
import { objects } from "./decoderStruct.ts"

/**
 * `Schema.decodeUnknownExit(schema)`, with a fast path compiled once from the
 * schema's AST: a value that decodes is walked by plain functions (no `Exit`
 * per field, no generator per struct with rest members), and gives the same
 * value as Effect's decoder (same keys in the same order, same
 * transformations and checks). Any value the fast path does not accept, and
 * any part of a schema it does not cover (suspensions, declarations with type
 * parameters, effectful transformations, optional ones that do not answer at
 * once, `oneOf` unions, overlapping unions of transformed members), goes to
 * Effect's decoder, so failures, their messages and their paths are Effect's
 * own.
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

const cache = new WeakMap<SchemaAST.AST, Compiled>()

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

const leaf = (accepts: string, test: (u: unknown) => boolean, inline?: string): Compiled => {
  const compiled: Compiled = {
    fast: (input) => test(input) ? input : invalid,
    native: true,
    accepts: new Set([accepts]),
    identity: true,
    stable: true
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
  return ast.encoding === undefined ? checked : withEncoding(checked, ast)
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
      return { fast: (input) => input, native: true, accepts: undefined, identity: true, stable: true }
    case "Objects":
      return objects(ast, compile)
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

interface Step {
  readonly parse: Fast
  /** `to`'s value of an absent key (`absent` when it stays absent) */
  readonly missing: (() => unknown) | undefined
  readonly transform: ((u: unknown) => unknown) | undefined
  /** an optional getter: an `Option` in, an `Option` (or `invalid`) out */
  readonly optional: ((o: Option.Option<unknown>) => unknown) | undefined
}

/**
 * The getter of a link as a {@link Step}: synchronous `Transform` and
 * `Passthrough` getters, and optional ones (`TransformOptional`, and
 * `TransformOptionalEffect` when its effect is already an exit: a decoding
 * default of `Effect.succeed`); `undefined` for any other.
 */
const step = (link: SchemaAST.Link): Step | undefined => {
  const transformation = link.transformation
  if (transformation._tag !== "Transformation") return undefined
  const getter = transformation.decode
  const to = compile(link.to)
  const base = { parse: to.fast, missing: to.missing, transform: undefined, optional: undefined }
  switch (getter._tag) {
    case "Passthrough":
      return base
    case "Transform":
      return { ...base, transform: getter.transform }
    case "TransformOptional":
      return { ...base, optional: getter.transform }
    case "TransformOptionalEffect": {
      const options: SchemaAST.ParseOptions = {}
      return {
        ...base,
        optional: (o) => {
          const result = getter.transform(o, options)
          return Exit.isExit(result) && Exit.isSuccess(result) ? result.value : invalid
        }
      }
    }
    default:
      return undefined
  }
}

/**
 * The encoded side first (the last link's `to`), then each link's decoding
 * toward the node, as Effect's interpreter runs them. A present value that an
 * optional getter makes absent goes to Effect's decoder; an absent key runs
 * the same steps from nothing (`missing`) when a getter can make a value of it.
 * A present value the link's `to` decodes as the node itself does, and that
 * its getter gives back unchanged, is the node's value already: it is not
 * decoded again ({@link decodedOnce}: what Effect's second pass would give).
 */
const withEncoding = (local: Compiled, ast: SchemaAST.AST): Compiled | undefined => {
  const links = ast.encoding!
  const steps: Array<Step> = []
  let native = local.native
  for (let i = links.length - 1; i >= 0; i--) {
    const next = step(links[i]!)
    if (next === undefined) return undefined
    native &&= compile(links[i]!.to).native
    steps.push(next)
  }
  // what the input must be: the encoded side, the last link's `to`
  const accepts = compile(links[links.length - 1]!.to).accepts
  const last = local.fast
  const once = links.length === 1 ? decodedOnce(ast, links[0]!, local, compile) : undefined
  const fast: Fast = (input) => {
    let value: unknown = input
    let parsed: unknown = invalid
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!
      value = parsed = step.parse(value)
      if (value === invalid) return invalid
      if (step.transform !== undefined) value = step.transform(value)
      else if (step.optional !== undefined) {
        const option = step.optional(Option.some(value))
        if (option === invalid || Option.isNone(option as Option.Option<unknown>)) return invalid
        value = (option as Option.Some<unknown>).value
      }
    }
    return value === parsed && once !== undefined && once(input) ? value : last(value)
  }
  const makesValues = steps.some((step) => step.optional !== undefined || step.missing !== undefined)
  return { fast, native, accepts, identity: false, missing: makesValues ? missingOf(steps, last) : undefined }
}

/** The steps of {@link withEncoding} for an absent key: it stays absent until a getter (or a `to`) gives a value. */
const missingOf = (steps: ReadonlyArray<Step>, last: Fast) => (): unknown => {
  let value: unknown = absent
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!
    if (value !== absent) value = step.parse(value)
    else if (step.missing !== undefined) value = step.missing()
    if (value === invalid) return invalid
    if (step.optional !== undefined) {
      const option = step.optional(value === absent ? Option.none() : Option.some(value))
      if (option === invalid) return invalid
      value = Option.isSome(option as Option.Option<unknown>) ? (option as Option.Some<unknown>).value : absent
    } else if (value !== absent && step.transform !== undefined) value = step.transform(value)
  }
  return value === absent ? absent : last(value)
}

/** `Schema.Json`'s parser, which its copies share (`optionalKey`, annotations, `Schema.MutableJson`). */
const jsonRun = (Schema.Json.ast as SchemaAST.Declaration).run

/** A JSON value that is no array or object: `Schema.Json` takes it as it is. */
const isJsonPrimitive = (u: unknown) =>
  u === null || typeof u === "string" || typeof u === "boolean" || (typeof u === "number" && Number.isFinite(u))

/**
 * A declaration without type parameters (`DateTime.Utc`, for one): its own
 * parser (`SchemaAST.Declaration.run`), when it answers at once with a
 * value. A success holding a symbol is a marker of Effect's own (`Schema.Json`
 * answers "the input, unchanged" so): Effect's decoder of the declaration
 * gives the value then, but for `Schema.Json` and a JSON primitive (the
 * input, as Effect's decoder gives it).
 */
const declaration = (ast: SchemaAST.Declaration): Compiled | undefined => {
  if (ast.typeParameters.length !== 0) return undefined
  let run: ReturnType<SchemaAST.Declaration["run"]> | undefined
  const general = delegate(ast).fast
  const options: SchemaAST.ParseOptions = {}
  const json = ast.run === jsonRun
  return {
    fast: (input) => {
      if (json && isJsonPrimitive(input)) return input
      const result = (run ??= ast.run(ast.typeParameters))(input, ast, options)
      // an effect that is not an exit yet: Effect's decoder decides
      if (!Exit.isExit(result) || !Exit.isSuccess(result)) return invalid
      return typeof result.value === "symbol" ? general(input) : result.value
    },
    native: true,
    accepts: undefined,
    identity: false,
    // `Schema.Json` gives a JSON value back as it is
    stable: json
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
    identity: false,
    stable: compile(ast.rest[0]!).stable
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
    identity,
    // at most one member accepts a value (or each gives it back): its own output too
    stable: members.every((member) => member.stable === true)
  }
}
