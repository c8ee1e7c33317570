// The `prepack` of the packages whose READMEs point at a guide of the repository
// (legacy-v2, v3: the migration guide; fleet: `docs/fleet.md`, its argument): copies
// `docs/migrating-to-v3.md` (or the guide named) of the repository into the
// package's own `docs/` (listed in its `files`), so that the packed and published
// package ships the guide its README (linking `docs/migrating-to-v3.md`, which
// works in the repository too: the copies are committed, and the docs test
// checks they equal the original) and deprecation warnings name.
import { copyFileSync, mkdirSync } from "node:fs"
import { join } from "node:path"

// the guide to copy: `node ../../scripts/copy-guide.ts fleet.md` (fleet's deployment guide)
const name = process.argv[2] ?? "migrating-to-v3.md"
const guide = join(import.meta.dirname, "..", "docs", name)
mkdirSync(join(process.cwd(), "docs"), { recursive: true })
copyFileSync(guide, join(process.cwd(), "docs", name))
