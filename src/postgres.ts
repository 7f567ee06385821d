/** langgraph-compaction/postgres: setting up the recall index's tables ahead of time (needs nothing but a pg Pool). */
export { postgresRecallSchemaSql, setupPostgresRecall } from "./checkpoint/recall-index/postgres-setup.js";
