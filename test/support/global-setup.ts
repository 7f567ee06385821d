import type { TestProject } from "vitest/node";
import { startPostgres } from "./postgres-server.js";

/** One Postgres server for the whole run; each test suite works in its own schema. */
export default async function setup(project: TestProject) {
  const server = await startPostgres();
  project.provide("postgresUrl", server.url);
  return async () => {
    await server.stop();
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}
