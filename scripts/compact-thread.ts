/** The compaction script, run from the source tree: npm run compact -- <command> ... (see src/cli/main.ts). */
import { runCli } from "../src/cli/main.js";

await runCli({ command: "npm run compact --", note: "In this repository use npm run --silent compact -- … for --json output (--silent keeps npm's banner out)." });
