/** langgraph-compaction/sqlite: what needs better-sqlite3 (an optional peer dependency). */
// The SQLite and Postgres backends, registered for every saver of theirs (store/all-backends.ts).
import "./store/all-backends.js";
export { SqliteStore } from "./archive/sqlite-store.js";
export type { SqliteDatabase, SqliteStatement } from "./sqlite-database.js";
