import type { Arbitrary } from "effect"

/**
 * The seed of this test file's property tests: `FC_SEED` when set, to replay a
 * failure (`FC_SEED=<n> pnpm vitest run <file>`), else a fresh one; printed
 * once per file so that a failed CI run can be replayed.
 */
export const seed: number = process.env["FC_SEED"] === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env["FC_SEED"])
if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, got ${process.env["FC_SEED"]}`)
console.log(`seed=${seed} (replay with FC_SEED=${seed})`)

/** Property check options with this file's {@link seed}. */
export const seeded = (options: Omit<Arbitrary.CheckOptions, "seed" | "replay">): Arbitrary.CheckOptions => ({ ...options, seed })
