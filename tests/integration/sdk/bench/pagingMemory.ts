/**
 * The memory runs of one variant of the paging phase, in a process of its
 * own (started by `paging.ts`): every connection of the small simulator, then
 * of the large one; prints `{"small": PagingRun, "large": PagingRun}`.
 *
 *   node --expose-gc sdk/bench/pagingMemory.ts <variant index> <small simulator JSON> <large simulator JSON>
 */
import type { SimAddress } from "./simulator.ts"
import { pagingVariants } from "./paging.ts"
import { clientsOn, LARGE, SMALL } from "./utils.ts"

const [k, smallSim, largeSim] = process.argv.slice(2)
const index = Number(k)
const small = await clientsOn(JSON.parse(smallSim!) as SimAddress, undefined)
const large = await clientsOn(JSON.parse(largeSim!) as SimAddress, undefined)
const runs: Record<string, unknown> = {}
for (const [key, size, c] of [["small", SMALL, small], ["large", LARGE, large]] as const) {
  const [name, run] = pagingVariants(c)[index]!
  const result = await run(size)
  if (result.items !== size) throw new Error(`${name}: ${result.items} items, expected ${size}`)
  runs[key] = result
}
await small.dispose()
await large.dispose()
console.log(JSON.stringify(runs))
process.exit(0)
