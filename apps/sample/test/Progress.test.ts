/**
 * The progress line on a terminal: ended by `close` after an interrupt or a
 * failure (the e2e test sends a real Ctrl-C through a pseudo-terminal), and
 * left alone after `done`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream } from "effect"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Export from "@connected-vehicle/sample/Export"
import * as Progress from "@connected-vehicle/sample/Progress"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "./cli.ts"

const terminal = () => {
  const written: Array<string> = []
  return { written, output: { isTTY: true, write: (text: string) => void written.push(text) } }
}

describe("Progress on a terminal", () => {
  it.live("an interrupted export ends the open line and leaves no file", () =>
    Effect.gen(function*() {
      const { output, written } = terminal()
      const dir = tempDir("progress")
      const firstPage = yield* Deferred.make<void>()
      const progress = yield* Progress.start("items", output)
      const pages = Stream.make({ items: [{ id: "a" }, { id: "b" }], total: 10 }).pipe(
        Stream.concat(Stream.fromEffect(Deferred.succeed(firstPage, undefined)).pipe(Stream.drain)),
        Stream.concat(Stream.never)
      )
      const fiber = yield* Effect.forkChild(Export.write({
        file: join(dir, "out.ndjson"),
        format: "ndjson",
        pages,
        progress,
        csv: { headers: ["id"], row: (item) => [item.id] }
      }))
      yield* Deferred.await(firstPage)
      yield* Fiber.interrupt(fiber)
      const text = written.join("")
      assert.include(text, "items [")
      assert.isTrue(text.endsWith("items/s\n"), JSON.stringify(text))
      assert.deepStrictEqual(readdirSync(dir), [])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("after done, close writes nothing more", () =>
    Effect.gen(function*() {
      const { output, written } = terminal()
      const progress = yield* Progress.start("items", output)
      yield* progress.page(3, 3)
      yield* progress.done
      yield* progress.close
      const text = written.join("")
      assert.isTrue(text.endsWith("items/s\n"), JSON.stringify(text))
      assert.notInclude(text, "\n\n")
    }))
})
