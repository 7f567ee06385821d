/**
 * The parts of a ThreadStore that differ per backend (backend.ts), chosen by what the saver is: the only place a
 * saver's kind is sniffed. Every backend — SQLite, Postgres, and the generic one for any other saver (an in-process
 * recall index) — is an adapter registered by the package's entry points (all-backends.ts), so the wrapper, the
 * middleware and the node load no backend of their own. A saver whose adapter is not registered is refused, never
 * served by another backend.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { CompactionError } from "../errors.js";
import type { Backend } from "./backend.js";

export type { Backend, HeadRow, RecallBackend, StoreFile, ThreadRow, ThreadStorage } from "./backend.js";

/** A saver this library has a backend for, told by its shape (a better-sqlite3 connection, a pg pool). */
export type SaverKind = "sqlite" | "postgres" | "generic";

export interface BackendAdapter {
  kind: SaverKind;
  create(saver: BaseCheckpointSaver, recallLanguage: string): Backend;
}

const adapters = new Map<SaverKind, BackendAdapter>();

/** Makes `adapter` the backend of the savers of its kind (all-backends.ts registers the three). */
export function registerBackend(adapter: BackendAdapter): void {
  adapters.set(adapter.kind, adapter);
}

export function saverKind(saver: BaseCheckpointSaver): SaverKind {
  const shape = saver as {
    db?: unknown;
    pool?: unknown;
    _dumpBlobs?: unknown;
    _dumpCheckpoint?: unknown;
    SQL_STATEMENTS?: { UPSERT_CHECKPOINT_BLOBS_SQL?: unknown };
  };
  const has = (value: unknown, method: string) =>
    typeof value === "object" && value !== null && typeof (value as Record<string, unknown>)[method] === "function";
  if (
    has(shape.pool, "connect") &&
    typeof shape._dumpBlobs === "function" &&
    typeof shape._dumpCheckpoint === "function" &&
    typeof shape.SQL_STATEMENTS?.UPSERT_CHECKPOINT_BLOBS_SQL === "string"
  )
    return "postgres";
  if (has(shape.db, "transaction") && has(shape.db, "prepare")) return "sqlite";
  return "generic";
}

/**
 * @throws CompactionError MISSING_DEPENDENCY for a saver whose backend is not registered (a module imported past the
 *   package's entry points).
 */
export function backendFor(saver: BaseCheckpointSaver, recallLanguage: string): Backend {
  const kind = saverKind(saver);
  const adapter = adapters.get(kind);
  if (!adapter)
    throw new CompactionError({
      code: "MISSING_DEPENDENCY",
      value: kind,
      message: `the checkpointer is ${kind === "sqlite" ? "a SQLite saver" : kind === "postgres" ? "a Postgres saver" : `a ${saver.constructor.name}`}, and this library's ${kind} backend is not loaded: import the library from its entry points ("langgraph-compaction", "langgraph-compaction/middleware"), which load it`,
    });
  return adapter.create(saver, recallLanguage);
}
