import { defineConfig } from "vitest/config";

/** `npm run test:server`: the Agent Server suite (test/server), apart from `npm test` because the server takes a while to start. */
export default defineConfig({
  test: {
    include: ["test/server/**/*.test.ts"],
    setupFiles: ["src/store/all-backends.ts"],
    testTimeout: 300_000,
    hookTimeout: 900_000,
    // One Agent Server at a time: each is a heavy process on a 2-core machine.
    fileParallelism: false,
  },
});
