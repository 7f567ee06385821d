/**
 * The parts of a ThreadStore that differ per backend (backend.ts), chosen by what the saver is: the only place a
 * saver's kind is sniffed.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { Backend } from "./backend.js";
import { genericBackend } from "./backend-generic.js";
import { postgresBackend } from "./backend-postgres.js";
import { sqliteBackend } from "./backend-sqlite.js";
import { isPostgresSaver } from "./swap-postgres.js";
import { isSqliteSaver } from "./swap-sqlite.js";

export type { Backend, HeadRow, RecallBackend, StoreFile, ThreadRow, ThreadStorage } from "./backend.js";

export function backendFor(saver: BaseCheckpointSaver, recallLanguage: string): Backend {
  if (isPostgresSaver(saver)) return postgresBackend(saver, recallLanguage);
  if (isSqliteSaver(saver)) return sqliteBackend(saver);
  return genericBackend(saver);
}
