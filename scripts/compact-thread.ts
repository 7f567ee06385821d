/** The compaction script, run from the source tree: npm run compact -- <command> ... (see src/cli/main.ts). */
import { listenForStop } from "../src/cli/stop-signal.js";

// `watch` hears SIGINT and SIGTERM before anything else loads (a stop during start-up is a clean stop).
if (process.argv.slice(2).includes("watch")) listenForStop();
const { runCli } = await import("../src/cli/main.js");
const { REPOSITORY_INVOCATION } = await import("./compact-thread-invocation.js");
await runCli(REPOSITORY_INVOCATION);
