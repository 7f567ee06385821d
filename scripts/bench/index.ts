/** `npm run bench`: every benchmark of the project, one table per measurement, in one run. */
import { benchHistory } from "./history.js";
import { benchPeers } from "./peers.js";
import { benchTokens } from "./tokens.js";
import { benchWrapper } from "./wrapper.js";

console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
await benchTokens();
await benchHistory();
await benchWrapper();
await benchPeers();
