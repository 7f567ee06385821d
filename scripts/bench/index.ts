/** `npm run bench`: every benchmark of the project, one table per measurement, in one run. */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { benchHistory } from "./history.js";
import { benchPeers } from "./peers.js";
import { benchRecall } from "./recall.js";
import { benchRetention, DEFAULT_DATA, printRetention } from "./retention.js";
import { benchTokens } from "./tokens.js";
import { benchWrapper } from "./wrapper.js";

console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
await benchTokens();
await benchHistory();
await benchWrapper();
// The memory bench forces GCs: it runs in its own node, started with --expose-gc.
spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", new URL("./memory.ts", import.meta.url).pathname], { stdio: "inherit" });
await benchPeers();
await benchRecall();
if (existsSync(DEFAULT_DATA)) printRetention(await benchRetention());
else console.log(`\nRetention on real conversations: skipped, no ${DEFAULT_DATA} (npm run bench:retention -- --data <file>)`);
