/** langgraph-compaction/postgres: setting up the recall index's tables ahead of time (needs nothing but a pg Pool). */
export { postgresRecallSchemaSql, setupPostgresRecall } from "./store/recall-index/postgres-setup.js";
