/**
 * @internal
 */
import { Effect, Schema } from "effect"
import { LegacyPath, UnitSystem } from "@connected-vehicle/schema/Legacy"
import { InvalidArgument } from "../InvalidArgument.ts"

const rules: Record<string, { readonly is: (u: unknown) => boolean; readonly expected: string }> = {
  limit: { is: Schema.is(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 50 }))), expected: "an integer from 1 to 50" },
  offset: { is: Schema.is(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))), expected: "an integer >= 0" },
  unitSystem: { is: Schema.is(UnitSystem), expected: "metric or imperial" },
  path: { is: Schema.is(LegacyPath), expected: `one of ${LegacyPath.literals.join(", ")}` }
}

/**
 * Checks the defined fields with the rule of the same name, failing on the first invalid one.
 *
 * @internal
 */
export const validate = (args: Readonly<Record<string, unknown>>): Effect.Effect<void, InvalidArgument> => {
  for (const [field, value] of Object.entries(args)) {
    const rule = rules[field]
    if (value === undefined || rule === undefined || rule.is(value)) continue
    return Effect.fail(
      new InvalidArgument({ field, message: `${field} must be ${rule.expected}, got ${JSON.stringify(value) ?? String(value)}` })
    )
  }
  return Effect.void
}
