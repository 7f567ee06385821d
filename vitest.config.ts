import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // The Agent Server suite runs apart: npm run test:server (vitest.server.config.ts).
    exclude: ["test/server/**", "**/node_modules/**"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration suites share one embedded Postgres (a schema per suite) and write real SQLite files;
    // two workers match the two cores of the CI machine.
    maxWorkers: 2,
    // Test files share their worker process (modules load once per worker, not once per file); what a test stubs or
    // spies on is restored after it, so no file sees another's settings or spies.
    isolate: false,
    unstubEnvs: true,
    restoreMocks: true,
  },
});
