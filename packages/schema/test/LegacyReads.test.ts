/**
 * Each legacy v2.0 read is described once, in `LegacyReads`: the contract's
 * read endpoints (`LegacyGroup`) and `LegacyEndpoints` are built from it, so a
 * read's name, path and body schema cannot disagree between them.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Schema } from "effect"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { LegacyGroup } from "../src/Api.ts"
import { LegacyEndpoints, LegacyReads, Odometer, Vin } from "../src/Legacy.ts"
import type { LegacyBody, LegacyPath } from "../src/Legacy.ts"

type Reads = typeof LegacyReads
type Name = keyof Reads

/** The contract's endpoint of a name. */
type ContractEndpoint<K extends string> = HttpApiEndpoint.WithIdentifier<HttpApiGroup.Endpoints<typeof LegacyGroup>, K>

type Same<A, B> = [A] extends [B] ? [B] extends [A] ? true : false : false

/**
 * Whether the contract and `LegacyEndpoints` give read `K` its table entry's
 * path and schema (the contract's success: the schema as a JSON codec).
 */
type FromTheTable<K extends Name> =
  & Same<HttpApiEndpoint.Success<ContractEndpoint<K>>, Schema.toCodecJson<Reads[K]["schema"]>>
  & Same<ContractEndpoint<K>["path"], `/v2.0/vehicles/:id${Reads[K]["path"]}`>
  & Same<(typeof LegacyEndpoints)[Reads[K]["path"]]["schema"], Reads[K]["schema"]>
  & Same<(typeof LegacyEndpoints)[Reads[K]["path"]]["permission"], Reads[K]["permission"]>

// every read of the table, at the type level: `true` only if each one agrees
const everyRead: { readonly [K in Name]: FromTheTable<K> }[Name] = true
// the contract has no other read: its GET endpoints with a vehicle are the table's names
const noOtherRead: Same<
  Exclude<HttpApiEndpoint.Identifier<HttpApiGroup.Endpoints<typeof LegacyGroup>>, "vehicles" | "batch">,
  Name
> = true
// the paths of the batch are the table's
const paths: Same<LegacyPath, Reads[Name]["path"]> = true

describe("LegacyReads: the one description of the legacy reads", () => {
  it("types the contract's reads and LegacyEndpoints from the table", () => {
    assert.isTrue(everyRead && noOtherRead && paths)
    // @ts-expect-error the contract's odometer read decodes the table's Odometer, not a Vin
    const wrongSchema: HttpApiEndpoint.Success<ContractEndpoint<"odometer">>["Type"] = Vin.make({ vin: "1FT" })
    // @ts-expect-error and so does the batch's `/odometer` entry
    const wrongBody: LegacyBody<"/odometer"> = { vin: "1FT" }
    // @ts-expect-error a path of no read of the table is no legacy path
    const unknownPath: LegacyPath = "/no/such/read"
    assert.strictEqual(successAst(LegacyGroup.endpoints.odometer), Odometer.ast)
    assert.isDefined(wrongSchema && wrongBody && unknownPath)
  })

  it("builds one contract endpoint per entry, in its order, with its path and schema", () => {
    const reads = Object.keys(LegacyGroup.endpoints).filter((name) => name !== "vehicles" && name !== "batch")
    assert.deepStrictEqual(reads, Object.keys(LegacyReads))
    for (const [name, read] of Object.entries(LegacyReads)) {
      const endpoint = LegacyGroup.endpoints[name as Name]
      assert.strictEqual(endpoint.method, "GET", name)
      assert.strictEqual(endpoint.path, `/v2.0/vehicles/:id${read.path}`, name)
      assert.strictEqual(successAst(endpoint), read.schema.ast, name)
    }
  })

  it("gives LegacyEndpoints each entry by its path (no two reads share a path)", () => {
    assert.deepStrictEqual(
      LegacyEndpoints,
      Object.fromEntries(Object.values(LegacyReads).map((read) => [read.path, { schema: read.schema, permission: read.permission }]))
    )
    assert.strictEqual(Object.keys(LegacyEndpoints).length, Object.keys(LegacyReads).length)
  })
})

/** The AST of the one success schema of an endpoint (its JSON codec shares it). */
function successAst(endpoint: { readonly success: ReadonlySet<Schema.Top> }): Schema.Top["ast"] {
  assert.strictEqual(endpoint.success.size, 1)
  return [...endpoint.success][0]!.ast
}
