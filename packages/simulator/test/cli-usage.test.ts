/**
 * The CLI, run as a child process: an unknown flag or a flag's value that
 * does not parse is one `error:` line and one line naming `--help` on
 * stderr, nothing on stdout (not the whole help), exit 2; `--help` still
 * prints the help on stdout.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { run } from "./helpers.ts"

const hint = "Run `connected-vehicle-simulator --help` for the flags.\n"

describe("simulator CLI: a usage error", () => {
  it.live("a bad flag value or an unknown flag: one error line and the --help hint, exit 2", () =>
    Effect.gen(function*() {
      const table: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["--failure-rate", "NaN"], `error: Invalid value for flag --failure-rate: "NaN". Expected a string representing a finite number\n`],
        [["--seed", "1.5"], `error: Invalid value for flag --seed: "1.5". Expected an integer\n`],
        [
          ["--v2-sunset", "2027-02-30"],
          `error: Invalid value for flag --v2-sunset: "2027-02-30". Expected: an ISO 8601 date that exists, e.g. 2027-06-01 or 2027-06-01T00:00:00Z\n`
        ],
        [
          ["--connections", "100000000"],
          `error: Invalid value for flag --connections: "100000000". Expected: Schema validation failed: Expected a value between 0 and 10000000\n`
        ],
        [["--bogus"], "error: Unrecognized flag: --bogus in command connected-vehicle-simulator\n"],
        // a message of several lines keeps them (an unknown flag's suggestion)
        [["--sed", "3"], "error: Unrecognized flag: --sed in command connected-vehicle-simulator\n  Did you mean this?\n    --seed\n"],
        // a character a terminal acts on is shown escaped
        [["--seed", "1\u001b[31m"], `error: Invalid value for flag --seed: "1\\u001b[31m". Expected a string representing a finite number\n`]
      ]
      // a failing parse never listens; a run that would is killed after 15 s
      const results = yield* Effect.forEach(table, ([args]) => run(["--port", "0", ...args], 15_000), { concurrency: 3 })
      results.forEach((result, i) => {
        const [args, line] = table[i]!
        assert.strictEqual(result.code, 2, `${args.join(" ")}: ${result.stderr}`)
        assert.strictEqual(result.stdout, "", args.join(" "))
        assert.strictEqual(result.stderr, line + hint, args.join(" "))
      })
    }), 120_000)

  it.live("--help prints the help on stdout, exit 0", () =>
    Effect.gen(function*() {
      const help = yield* run(["--help"])
      assert.strictEqual(help.code, 0, help.stderr)
      assert.include(help.stdout, "--failure-rate number")
      assert.strictEqual(help.stderr, "")
    }), 60_000)
})
