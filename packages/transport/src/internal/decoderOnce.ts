/**
 * A decoding whose encoded side is the node itself (a decoding default, `null`
 * as a default): the body decoder (`decoder.ts`) walks a present value once.
 *
 * @internal
 */
import { SchemaAST } from "effect"
import * as Common from "@connected-vehicle/schema/Common"
import { type Compiled, runtimeType } from "./decoderNode.ts"

const sameChecks = (a: SchemaAST.Checks | undefined, b: SchemaAST.Checks | undefined) =>
  a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((check, i) => check === b[i]))

const sameAll = (a: ReadonlyArray<SchemaAST.AST>, b: ReadonlyArray<SchemaAST.AST>) =>
  a.length === b.length && a.every((ast, i) => sameShape(ast, b[i]!))

const hasEncodingChecks = (ast: SchemaAST.AST) => "encodingChecks" in ast && ast.encodingChecks !== undefined

const sameObjects = (a: SchemaAST.Objects, b: SchemaAST.Objects) =>
  a.propertySignatures.length === b.propertySignatures.length &&
  a.propertySignatures.every((p, i) => {
    const q = b.propertySignatures[i]!
    return p.name === q.name && SchemaAST.isOptional(p.type) === SchemaAST.isOptional(q.type) && sameShape(p.type, q.type)
  }) &&
  a.indexSignatures.length === b.indexSignatures.length &&
  a.indexSignatures.every((p, i) => {
    const q = b.indexSignatures[i]!
    return sameShape(p.parameter, q.parameter) && sameShape(p.type, q.type)
  })

/**
 * Two nodes that Effect's decoder decodes alike: the same tags, checks and
 * members (`b`'s own encoding left out at the top: `a` is compared with the
 * node without it). Nodes with encodings below the top are not compared
 * (`false`), nor suspensions or declarations with type parameters.
 */
export const sameShape = (a: SchemaAST.AST, b: SchemaAST.AST, top = false): boolean => {
  if (a === b) return true
  if (a._tag !== b._tag || a.encoding !== undefined || (!top && b.encoding !== undefined)) return false
  if (!sameChecks(a.checks, b.checks) || hasEncodingChecks(a) || hasEncodingChecks(b)) return false
  switch (a._tag) {
    case "String":
    case "Number":
    case "Boolean":
    case "Null":
    case "Undefined":
    case "Unknown":
    case "Any":
      return true
    case "Literal":
      return a.literal === (b as SchemaAST.Literal).literal
    case "Declaration": {
      const d = b as SchemaAST.Declaration
      return a.typeParameters.length === 0 && d.typeParameters.length === 0 && a.run === d.run
    }
    case "Objects":
      return sameObjects(a, b as SchemaAST.Objects)
    case "Arrays": {
      const c = b as SchemaAST.Arrays
      return a.elements.length === c.elements.length &&
        a.elements.every((e, i) => SchemaAST.isOptional(e) === SchemaAST.isOptional(c.elements[i]!)) &&
        sameAll(a.elements, c.elements) && sameAll(a.rest, c.rest)
    }
    case "Union": {
      const u = b as SchemaAST.Union
      return a.annotations === u.annotations && a.options?.mode === u.options?.mode && sameAll(a.types, u.types)
    }
    default:
      return false
  }
}

/**
 * For a node annotated `PresentUnchanged` (the schema package's) with one
 * link whose encoded side (`to`) decodes a present value
 * as the node itself does (the same node, or a union with it as a member that
 * alone accepts the value's runtime type), and whose own decoding gives back
 * a value it decoded (`stable`): the runtime types of a present value for
 * which Effect's second pass (the node's own decoding of what the link gave,
 * when its getter gives it back unchanged) gives the value again, so the
 * decoder skips it: whether a present input is one of them (`undefined`
 * when none is).
 */
export const decodedOnce = (
  ast: SchemaAST.AST,
  link: SchemaAST.Link,
  local: Compiled,
  compile: (ast: SchemaAST.AST) => Compiled
): ((input: unknown) => boolean) | undefined => {
  // only a schema whose author says its getter gives a present value back unmutated
  if (local.stable !== true || ast.annotations?.[Common.PresentUnchanged] !== true) return undefined
  const to = link.to
  if (sameShape(to, ast, true)) return () => true
  if (to._tag !== "Union" || to.encoding !== undefined || to.checks !== undefined || to.options?.mode === "oneOf") return undefined
  const member = to.types.findIndex((type) => sameShape(type, ast, true))
  const accepts = member === -1 ? undefined : compile(to.types[member]!).accepts
  if (accepts === undefined) return undefined
  // every other member rejects a value of those types: the union gives the member's value
  const others = to.types.filter((_, i) => i !== member).map(compile)
  return others.every((other) => other.accepts !== undefined && [...other.accepts].every((type) => !accepts.has(type)))
    ? (input) => accepts.has(runtimeType(input))
    : undefined
}
