/**
 * SqliteStore: a LangGraph `BaseStore` on better-sqlite3, so archived tool outputs (and any long-term memory) can
 * live in the same SQLite file as the checkpoints — LangGraph.js ships no SQLite store. Key-value only: `search`
 * filters by namespace prefix and by value fields (equality, or $eq/$ne/$gt/$gte/$lt/$lte), without semantic ranking
 * (a `query` is accepted and ignored, as InMemoryStore does without embeddings).
 */
import {
  BaseStore,
  type Item,
  type Operation,
  type OperationResults,
  type SearchItem,
} from "@langchain/langgraph-checkpoint";
import type { SqliteDatabase } from "../sqlite-database.js";
import { argument } from "../options/check.js";
import { listOf, never, satisfying, withMethods } from "../options/rules.js";
import { sqliteDriver } from "../optional-dependency.js";

/** Separates namespace labels in the stored key; labels may not contain it. */
const SEPARATOR = "\u001f";
/** A namespace label: text, without the separator the labels are joined with. */
const LABEL = satisfying<string>(
  (label) => typeof label === "string" && label !== "" && !label.includes(SEPARATOR),
  "non-empty string labels",
);
const OPERATOR = never("one of $eq, $ne, $gt, $gte, $lt, $lte");

interface Row {
  namespace: string;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
}

type GetOp = { namespace: string[]; key: string };
type PutOp = { namespace: string[]; key: string; value: Record<string, unknown> | null };
type SearchOp = {
  namespacePrefix: string[];
  filter?: Record<string, unknown>;
  limit?: number;
  offset?: number;
  query?: string;
};
type ListOp = {
  matchConditions?: Array<{ matchType: "prefix" | "suffix"; path: string[] }>;
  maxDepth?: number;
  limit: number;
  offset: number;
};

function encode(namespace: string[]): string {
  argument("namespace", namespace, listOf(LABEL, "non-empty string labels"));
  return namespace.join(SEPARATOR);
}

function toItem(row: Row): Item {
  return {
    namespace: row.namespace.split(SEPARATOR),
    key: row.key,
    value: JSON.parse(row.value) as Record<string, unknown>,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function matches(actual: unknown, expected: unknown): boolean {
  if (expected !== null && typeof expected === "object" && !Array.isArray(expected)) {
    const entries = Object.entries(expected as Record<string, unknown>);
    if (entries.length > 0 && entries.every(([operator]) => operator.startsWith("$"))) {
      return entries.every(([operator, value]) => {
        switch (operator) {
          case "$eq":
            return matches(actual, value);
          case "$ne":
            return !matches(actual, value);
          case "$gt":
            return (actual as number) > (value as number);
          case "$gte":
            return (actual as number) >= (value as number);
          case "$lt":
            return (actual as number) < (value as number);
          case "$lte":
            return (actual as number) <= (value as number);
          default:
            return argument("filter", operator, OPERATOR) as boolean;
        }
      });
    }
  }
  return JSON.stringify(actual) === JSON.stringify(expected);
}

export class SqliteStore extends BaseStore {
  readonly db: SqliteDatabase;

  /** `db`: an open better-sqlite3 database (e.g. `sqliteSaver.db`, to share the checkpoints' file) or a path. */
  constructor(db: SqliteDatabase | string) {
    super();
    if (typeof db === "string") {
      const Database = sqliteDriver("SqliteStore opened from a path");
      this.db = new Database(db);
    } else if (db && typeof (db as SqliteDatabase).prepare === "function") this.db = db;
    else
      this.db = argument(
        "db",
        db,
        withMethods(["prepare"], "a better-sqlite3 Database or a file path"),
      ) as SqliteDatabase;
    this.db.exec(`CREATE TABLE IF NOT EXISTS langgraph_store (
      namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
      created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (namespace, key))`);
  }

  static fromConnString(path: string): SqliteStore {
    return new SqliteStore(path);
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    const run = this.db.transaction(() => {
      for (const operation of operations as Operation[]) {
        if ("value" in operation) results.push(this.put_(operation as PutOp));
        else if ("key" in operation) results.push(this.get_(operation as GetOp));
        else if ("namespacePrefix" in operation) results.push(this.search_(operation as SearchOp));
        else results.push(this.listNamespaces_(operation as ListOp));
      }
    });
    run.immediate();
    return results as OperationResults<Op>;
  }

  private get_({ namespace, key }: GetOp): Item | null {
    const row = this.db
      .prepare(`SELECT * FROM langgraph_store WHERE namespace = ? AND key = ?`)
      .get(encode(namespace), key) as Row | undefined;
    return row ? toItem(row) : null;
  }

  private put_({ namespace, key, value }: PutOp): void {
    const encoded = encode(namespace);
    if (value === null) {
      this.db.prepare(`DELETE FROM langgraph_store WHERE namespace = ? AND key = ?`).run(encoded, key);
      return;
    }
    const now = new Date().toISOString();
    this.db
      .prepare(
        `INSERT INTO langgraph_store (namespace, key, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      )
      .run(encoded, key, JSON.stringify(value), now, now);
  }

  private search_({ namespacePrefix, filter, limit = 10, offset = 0 }: SearchOp): SearchItem[] {
    const prefix = namespacePrefix.length === 0 ? undefined : encode(namespacePrefix);
    const rows =
      prefix === undefined
        ? (this.db.prepare(`SELECT * FROM langgraph_store ORDER BY namespace, key`).all() as Row[])
        : (this.db
            .prepare(
              `SELECT * FROM langgraph_store WHERE namespace = ? OR substr(namespace, 1, ?) = ? ORDER BY namespace, key`,
            )
            .all(prefix, prefix.length + 1, `${prefix}${SEPARATOR}`) as Row[]);
    const items = rows
      .map(toItem)
      .filter(
        (item) => !filter || Object.entries(filter).every(([field, expected]) => matches(item.value[field], expected)),
      );
    return items.slice(offset, offset + limit).map((item) => ({ ...item, score: undefined }));
  }

  private listNamespaces_({ matchConditions, maxDepth, limit, offset }: ListOp): string[][] {
    let namespaces = (
      this.db.prepare(`SELECT DISTINCT namespace FROM langgraph_store`).all() as Array<{ namespace: string }>
    ).map((row) => row.namespace.split(SEPARATOR));
    const fits = (condition: { matchType: string; path: string[] }, namespace: string[]) => {
      if (condition.path.length > namespace.length) return false;
      const start = condition.matchType === "suffix" ? namespace.length - condition.path.length : 0;
      return condition.path.every((label, index) => label === "*" || namespace[start + index] === label);
    };
    if (matchConditions?.length)
      namespaces = namespaces.filter((namespace) => matchConditions.every((condition) => fits(condition, namespace)));
    if (maxDepth !== undefined) {
      namespaces = [...new Set(namespaces.map((namespace) => namespace.slice(0, maxDepth).join(SEPARATOR)))].map(
        (joined) => joined.split(SEPARATOR),
      );
    }
    namespaces.sort((a, b) => a.join(SEPARATOR).localeCompare(b.join(SEPARATOR)));
    return namespaces.slice(offset, offset + limit);
  }
}
