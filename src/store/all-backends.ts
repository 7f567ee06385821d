/**
 * The backends, registered (backends.ts): imported by the package's entry points, so a saver is served by its backend
 * whichever runtime sees it. Neither SQLite's nor Postgres' loads its driver until a saver of its kind is given.
 */
import { registerBackend } from "./backends.js";
import { genericBackend } from "./backend-generic.js";
import { postgresBackend } from "./backend-postgres.js";
import { sqliteBackend } from "./backend-sqlite.js";
import type { PostgresSaverInternals } from "./swap-postgres.js";
import type { SqliteSaverLike } from "./swap-sqlite.js";

registerBackend({ kind: "generic", create: (saver) => genericBackend(saver) });
registerBackend({ kind: "sqlite", create: (saver) => sqliteBackend(saver as SqliteSaverLike) });
registerBackend({
  kind: "postgres",
  create: (saver, language) => postgresBackend(saver as unknown as PostgresSaverInternals, language),
});
