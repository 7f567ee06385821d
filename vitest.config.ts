import { defineConfig } from "vitest/config";

/**
 * The reliability suites that kill and race child processes: their time scales with the machine (every trial starts
 * processes), not with what they check. `npm run test:reliability` runs them at full size (CI runs it after `npm
 * test`); `npm test` runs every other suite, the in-process reliability ones (fuzz, index exactness, versions, faults,
 * bad input, security) at reduced sizes.
 */
export const PROCESS_SUITES = [
  "test/reliability/crash-safety.test.ts",
  "test/reliability/crash-prune-postgres.test.ts",
  "test/reliability/racing-writers.test.ts",
  "test/reliability/pruned-snapshot.test.ts",
  "test/reliability/fleet-kills.test.ts",
];

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // The Agent Server suite runs apart: npm run test:server (vitest.server.config.ts). The process suites run in
    // npm run test:reliability (COMPACTION_PROCESS_SUITES=1).
    exclude: [
      "test/server/**",
      "**/node_modules/**",
      ...(process.env.COMPACTION_PROCESS_SUITES === "1" ? [] : PROCESS_SUITES),
    ],
    globalSetup: ["test/support/global-setup.ts"],
    // The SQLite and Postgres backends, registered as the package's entry points register them (tests import modules).
    setupFiles: ["src/store/all-backends.ts"],
    // A budget that holds at 10x slowdown (a machine whose load is many times its cores) for every case of the
    // suite: the longest takes under 20 s on a quiet 2-core machine. A case never waits for time to pass: its phases
    // are driven by signals the code emits; the budget only bounds a hang.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Integration suites share one embedded Postgres (a schema per suite) and write real SQLite files. Four workers
    // on the CI machine's two cores: many cases wait on child processes (the script, the demo, killed writers) and on
    // Postgres, and another worker runs meanwhile — measured beside a CPU hog, 305 s with two workers, 277 s with three
    // (on a slower day of the same machine: 311 s with three, 294 s with four).
    maxWorkers: 4,
    // Test files share their worker process (modules load once per worker, not once per file); what a test stubs or
    // spies on is restored after it, so no file sees another's settings or spies.
    isolate: false,
    unstubEnvs: true,
    restoreMocks: true,
  },
});
