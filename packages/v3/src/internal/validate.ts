/**
 * @internal
 */
import { Effect, Schema } from "effect"
import { Mode, PowertrainFilter, Region } from "@connected-vehicle/schema/Common"
import { PageNumber, PageSize } from "@connected-vehicle/schema/Pagination"
import { InvalidArgument } from "../InvalidArgument.ts"

interface Rule {
  readonly is: (u: unknown) => boolean
  readonly expected: string
}

const rule = <S extends Schema.Top>(schema: S, expected: string): Rule => ({
  is: Schema.is(schema as any) as (u: unknown) => boolean,
  expected
})

const rules = {
  page: rule(PageNumber, "an integer >= 1"),
  pageSize: rule(PageSize, "an integer from 1 to 100"),
  mode: rule(Mode, "one of live, simulated"),
  region: rule(Region, "one of US, CA, EUROPE"),
  powertrainType: rule(PowertrainFilter, "one of ICE, BEV, PHEV, EV"),
  isEnabled: rule(Schema.Boolean, "a boolean"),
  autoSubscribe: rule(Schema.Boolean, "a boolean"),
  string: rule(Schema.String, "a string")
} as const

/**
 * Checks the given fields (undefined ones are skipped) with the rule of the
 * same name (`string` for the others), failing on the first invalid one.
 *
 * @internal
 */
export const validate = (args: object): Effect.Effect<void, InvalidArgument> => {
  for (const [field, value] of Object.entries(args)) {
    if (value === undefined) continue
    const r = (rules as Record<string, Rule>)[field] ?? rules.string
    if (!r.is(value)) {
      return Effect.fail(
        new InvalidArgument({ field, message: `${field} must be ${r.expected}, got ${JSON.stringify(value) ?? String(value)}` })
      )
    }
  }
  return Effect.void
}

/**
 * A query object with only the defined entries.
 *
 * @internal
 */
export const compact = <A extends Record<string, unknown>>(a: A): { [K in keyof A]?: Exclude<A[K], undefined> } => {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(a)) if (v !== undefined) out[k] = v
  return out as { [K in keyof A]?: Exclude<A[K], undefined> }
}
