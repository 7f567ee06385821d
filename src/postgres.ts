/** langgraph-compaction/postgres: setting up the recall index's tables ahead of time (needs nothing but a pg Pool). */
// The SQLite and Postgres backends, registered for every saver of theirs (store/all-backends.ts).
import "./store/all-backends.js";
export { postgresRecallSchemaSql, setupPostgresRecall } from "./store/recall-index/postgres-setup.js";
