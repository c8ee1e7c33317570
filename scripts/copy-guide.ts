// The `prepack` of the packages whose READMEs point at the migration guide
// (legacy-v2, v3): copies `docs/migrating-to-v3.md` of the repository into the
// package's own `docs/` (listed in its `files`), so that the packed and published
// package ships the guide its README (linking `docs/migrating-to-v3.md`, which
// works in the repository too: the copies are committed, and the docs test
// checks they equal the original) and deprecation warnings name.
import { copyFileSync, mkdirSync } from "node:fs"
import { join } from "node:path"

const guide = join(import.meta.dirname, "..", "docs", "migrating-to-v3.md")
mkdirSync(join(process.cwd(), "docs"), { recursive: true })
copyFileSync(guide, join(process.cwd(), "docs", "migrating-to-v3.md"))
