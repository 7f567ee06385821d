/** langgraph-compaction/sqlite: what needs better-sqlite3 (an optional peer dependency). */
export { SqliteStore } from "./archive/sqlite-store.js";
export type { SqliteDatabase, SqliteStatement } from "./store/sqlite-database.js";
