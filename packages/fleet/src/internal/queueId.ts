/**
 * The id an event is stored under in the `PersistedQueue`.
 *
 * @internal
 */
import { createHash } from "node:crypto"

/**
 * The longest id kept as it is: Effect's SQL `PersistedQueue` keeps ids in a
 * `VARCHAR(255)` (characters; a JavaScript string of at most 255 UTF-16 units
 * has at most 255 characters). The webhooks receiver accepts event ids of up
 * to 256 characters, and a replay's id adds its suffix.
 */
const maxPlainLength = 255

/**
 * `id` as it is when it fits the store, else `sha256:` and the lowercase hex
 * SHA-256 of its UTF-8 bytes (71 characters): the same in every process and
 * on every store, so that the same long id is still stored once.
 *
 * @internal
 */
export const queueIdOf = (id: string): string =>
  id.length <= maxPlainLength ? id : `sha256:${createHash("sha256").update(id, "utf8").digest("hex")}`
