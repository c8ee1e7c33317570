import type { Arbitrary } from "effect"
import { expect } from "@effect/vitest"

/**
 * The seed of the property tests of the test file being run: `FC_SEED` when
 * set, to replay a failure (`FC_SEED=<n> pnpm vitest run <file>`), else a
 * fresh one for each file; printed once per file so that a failed CI run can
 * be replayed. A vitest worker runs several files and loads this module once:
 * the seed is chosen (and printed) at the first property test of each file.
 */
let current: { readonly file: string | undefined; readonly seed: number } | undefined

const seedOfThisFile = (): number => {
  const file = expect.getState().testPath
  if (current === undefined || current.file !== file) {
    const seed = process.env["FC_SEED"] === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env["FC_SEED"])
    if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, got ${process.env["FC_SEED"]}`)
    console.log(`seed=${seed} (replay with FC_SEED=${seed})`)
    current = { file, seed }
  }
  return current.seed
}

/** Property check options with this file's seed (see above). */
export const seeded = (options: Omit<Arbitrary.CheckOptions, "seed" | "replay">): Arbitrary.CheckOptions => ({ ...options, seed: seedOfThisFile() })
