/** The compaction script, run from the source tree: npm run compact -- <command> ... (see src/cli/main.ts). */
import { main } from "../src/cli/main.js";

process.exitCode = await main(process.argv.slice(2));
