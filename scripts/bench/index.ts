/** `npm run bench`: every benchmark of the project, one table per measurement, in one run. */
import "../../src/store/all-backends.js";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { benchHistory } from "./history.js";
import { benchPeers } from "./peers.js";
import { benchRecall } from "./recall.js";
import { benchStorage } from "./storage.js";
import { benchRetention, DEFAULT_DATA, printRetention } from "./retention.js";
import { benchTokens } from "./tokens.js";
import { readmeBlock } from "./readme-block.js";
import { benchWrapper } from "./wrapper.js";
import { benchTurnCost } from "./turn-cost.js";
import { benchCost } from "./cost.js";
import { benchTimeliness } from "./timeliness.js";

console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
// Each part writes its block of docs/benchmarks.md (see readme-block.ts); the memory bench, in its own node, writes its own.
await readmeBlock("tokens", () => benchTokens());
await readmeBlock("history", () => benchHistory());
await readmeBlock("wrapper", () => benchWrapper(), { write: process.env.BENCH_BUSY_SECONDS === undefined });
await readmeBlock("turns", () => benchTurnCost());
await readmeBlock("timeliness", () => benchTimeliness());
// The memory bench forces GCs: it runs in its own node, started with --expose-gc.
spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", new URL("./memory.ts", import.meta.url).pathname], {
  stdio: "inherit",
});
await readmeBlock("peers", () => benchPeers());
await readmeBlock("storage", () => benchStorage());
await readmeBlock("recall", () => benchRecall());
if (existsSync(DEFAULT_DATA)) {
  await readmeBlock("cost", () => benchCost());
  const outcome = await benchRetention();
  await readmeBlock("retention", async () => printRetention(outcome));
} else
  console.log(
    `\nRetention on real conversations: skipped, no ${DEFAULT_DATA} (npm run bench:retention -- --data <file>)`,
  );
