import { defineConfig } from "tsdown";

// One source, two module formats: the library as ES module and CommonJS (with declarations for each), the script
// and the compaction worker as ES modules. Dependencies and peer dependencies stay external (tsdown's default), so the application's own
// copies of @langchain/* are used and optional backends load only when called.
const shared = {
  platform: "node",
  target: "node20",
  tsconfig: "tsconfig.build.json",
  outDir: "dist",
  sourcemap: false,
} as const;

const library = {
  index: "src/index.ts",
  sqlite: "src/sqlite.ts",
  openai: "src/openai.ts",
  postgres: "src/postgres.ts",
  middleware: "src/middleware.ts",
  client: "src/client.ts",
  strategies: "src/strategies.ts",
  internal: "src/internal.ts",
};

export default defineConfig([
  {
    ...shared,
    entry: { ...library, testing: "src/testing/index.ts" },
    format: "esm",
    dts: true,
    shims: true,
    clean: true,
  },
  // The testing entry loads vitest with a top-level await when it is installed; CommonJS has no top-level await (and
  // vitest cannot be required), so its CommonJS build is its own module (src/testing/commonjs.ts).
  {
    ...shared,
    entry: { ...library, testing: "src/testing/commonjs.ts" },
    format: "cjs",
    dts: true,
    shims: true,
    clean: false,
  },
  { ...shared, entry: { "cli/bin": "src/cli/bin.ts" }, format: "esm", dts: false, clean: false },
]);
