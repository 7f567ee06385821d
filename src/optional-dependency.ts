/**
 * Optional peer dependencies — the SQLite and Postgres backends and the OpenAI provider — are loaded only when a
 * feature that needs one is used, so an application installs only what it uses. A missing one is a
 * CompactionError MISSING_DEPENDENCY naming the package to install.
 */
import { createRequire } from "node:module";
import { CompactionError } from "./errors.js";
import type { SqliteDatabase } from "./sqlite-database.js";

export type OptionalDependency =
  | "better-sqlite3"
  | "@langchain/langgraph-checkpoint-sqlite"
  | "pg"
  | "@langchain/langgraph-checkpoint-postgres"
  | "@langchain/openai"
  | "langchain"
  | "pg-boss";

const require = createRequire(import.meta.url);

/** Whether `error` says that `name` itself (not one of its own dependencies) could not be found. */
function isMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  const message = (error as Error).message;
  return message.includes(`'${name}'`) || message.includes(`"${name}"`);
}

export function missingDependency(name: string, feature: string, cause?: unknown): CompactionError {
  return new CompactionError({
    code: "MISSING_DEPENDENCY",
    value: name,
    message: `${feature} needs the optional package ${name}, which is not installed: npm install ${name}`,
    cause,
  });
}

/**
 * Every package of `names` that a feature needs, checked at once: one MISSING_DEPENDENCY naming all that are
 * missing (`npm install a b`), so a user never installs them one run at a time.
 */
export function requireAllInstalled(names: readonly OptionalDependency[], feature: string): void {
  const missing = names.filter((name) => !isInstalled(name));
  if (missing.length === 0) return;
  if (missing.length === 1) throw missingDependency(missing[0]!, feature);
  throw new CompactionError({
    code: "MISSING_DEPENDENCY",
    value: missing,
    message: `${feature} needs the optional packages ${missing.join(" and ")}, which are not installed: npm install ${missing.join(" ")}`,
  });
}

/**
 * Imports an optional ES module through `load` (a literal `import("…")`, so types and bundlers see the name).
 * @throws CompactionError MISSING_DEPENDENCY when the package is not installed.
 */
export async function importOptional<M>(name: string, feature: string, load: () => Promise<M>): Promise<M> {
  try {
    return await load();
  } catch (error) {
    throw isMissing(error, name) ? missingDependency(name, feature, error) : error;
  }
}

/** Whether the optional package `name` can be loaded from here (resolved, not loaded). */
export function isInstalled(name: OptionalDependency): boolean {
  return isInstalledPackage(name);
}

/** Whether any package `name` can be loaded from here (a provider's, named by langchain's table). */
export function isInstalledPackage(name: string): boolean {
  try {
    require.resolve(name);
    return true;
  } catch (error) {
    if (isMissing(error, name)) return false;
    // Resolvable only through the "import" condition: installed.
    return (error as { code?: unknown } | undefined)?.code === "ERR_PACKAGE_PATH_NOT_EXPORTED";
  }
}

/** A module of an installed package, required synchronously (a CommonJS build, or Node's require of ES modules). */
export function requireModule<M>(specifier: string): M {
  return require(specifier) as M;
}

/**
 * Requires an optional CommonJS-only package synchronously (better-sqlite3, pg: they have no ES module build, so
 * there is a single copy either way).
 * @throws CompactionError MISSING_DEPENDENCY when the package is not installed.
 */
export function requireOptional<M>(name: OptionalDependency, feature: string): M {
  try {
    return require(name) as M;
  } catch (error) {
    throw isMissing(error, name) ? missingDependency(name, feature, error) : error;
  }
}

/** A database better-sqlite3 opens: what this library uses of one, and what opening and closing one takes. */
export interface SqliteConnection extends SqliteDatabase {
  pragma(source: string): unknown;
  close(): unknown;
}

/** better-sqlite3's `Database` constructor: a file path, or a serialized database's bytes (an in-memory copy). */
export type SqliteDriver = new (
  file: string | Buffer,
  options?: { fileMustExist?: boolean; readonly?: boolean },
) => SqliteConnection;

/**
 * better-sqlite3, the one place it is loaded: for what opens a SQLite file itself (the script, SqliteStore from a
 * path). A SqliteSaver given to the library brings its own connection, and nothing else loads the driver.
 * @throws CompactionError MISSING_DEPENDENCY naming it and every package of `with` (the feature's others) missing.
 */
export function sqliteDriver(feature: string, withPackages: readonly OptionalDependency[] = []): SqliteDriver {
  requireAllInstalled(["better-sqlite3", ...withPackages], feature);
  return requireOptional<SqliteDriver>("better-sqlite3", feature);
}

/**
 * Whether `error` is better-sqlite3 finding no native module: the package is installed but its install script never
 * built it (installed with `--ignore-scripts`, by a package manager that skips scripts not allowed, or the build failed),
 * or it was built for another Node.js.
 */
export function isUnbuiltNativeModule(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /Could not locate the bindings file|better_sqlite3\.node|NODE_MODULE_VERSION/.test(message);
}

/** The error for better-sqlite3 without its native module: what to add to package.json, and the command to build it. */
export function unbuiltSqlite(cause: unknown): CompactionError {
  return new CompactionError({
    code: "MISSING_DEPENDENCY",
    value: "better-sqlite3",
    message:
      'better-sqlite3 is installed but its native module is not built (its install script did not run or failed: installed with --ignore-scripts, or by a package manager that skips scripts not allowed, which "allowScripts": { "better-sqlite3": true } in package.json allows); run npm rebuild better-sqlite3',
    cause,
  });
}
