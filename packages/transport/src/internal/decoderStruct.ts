/**
 * Structs of the body decoder (`decoder.ts`): declared keys read as Effect
 * reads them, at most one string-keyed rest record, code of their own.
 *
 * @internal
 */
import { SchemaAST } from "effect"
import { absent, type Compiled, type Fast, inlined, invalid } from "./decoderNode.ts"

interface Property {
  readonly name: string
  readonly optional: boolean
  readonly type: Compiled
}

/**
 * The value of a property whose key is absent: what its node makes of
 * nothing (a decoding default), `absent` (left out: an optional key), or
 * `invalid` (a required key, or a node Effect's decoder must decode).
 */
const whenAbsent = (property: Property): unknown => {
  if (!property.type.native) return invalid
  const value = property.type.missing === undefined ? absent : property.type.missing()
  return value === absent && !property.optional ? invalid : value
}

const assign = (out: Record<string, unknown>, key: string, value: unknown) => {
  if (key === "__proto__") Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true })
  else out[key] = value
}

/** A struct (declared keys, `key in input` as Effect reads them) with at most one string-keyed rest record. */
export const objects = (ast: SchemaAST.Objects, compile: (ast: SchemaAST.AST) => Compiled): Compiled | undefined => {
  if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) return undefined
  const properties: Array<Property> = []
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
          const value = whenAbsent(property)
          if (value === invalid) return invalid
          if (value !== absent) assign(out, name, value)
          continue
        }
        const value = property.type.fast(record[name])
        if (value === invalid) return invalid
        assign(out, name, value)
      }
      return rest === undefined ? out : withRest(record, out, rest.fast, declared)
    }),
    native: true,
    accepts: new Set(["object"]),
    identity: false,
    stable: properties.every((property) => property.type.stable === true) && (rest === undefined || rest.stable === true)
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
  properties: ReadonlyArray<Property>,
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
    const otherwise = property.type.native && property.type.missing !== undefined
      ? ` else { v = whenAbsent(properties[${i}]); if (v === invalid) return invalid; if (v !== absent) out[${key}] = v }`
      : property.optional && property.type.native
      ? ""
      : " else return invalid"
    const inline = inlined.get(property.type)
    lines.push(
      inline === undefined
        ? `if (${key} in input) { v = fasts[${i}](input[${key}]); if (v === invalid) return invalid; out[${key}] = v }${otherwise}`
        : `if (${key} in input) { v = input[${key}]; if (!(${inline})) return invalid; out[${key}] = v }${otherwise}`
    )
  })
  lines.push(rest === undefined ? "return out" : "return withRest(input, out, rest, declared)", "}")
  try {
    return new Function("invalid", "absent", "whenAbsent", "properties", "fasts", "rest", "declared", "withRest", lines.join("\n"))(
      invalid,
      absent,
      whenAbsent,
      properties,
      properties.map((property) => property.type.fast),
      rest?.fast,
      declared,
      withRest
    ) as Fast
  } catch {
    return undefined
  }
}
