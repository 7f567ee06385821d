import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration suites share one embedded Postgres per file and write real SQLite files;
    // two workers match the two cores of the CI machine.
    maxWorkers: 2,
  },
});
