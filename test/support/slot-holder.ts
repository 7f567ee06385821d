/**
 * A process holding one of the machine's compaction slots until it is killed:
 *   node slot-holder.ts <name>
 * It takes slot 0 of the HostSlots named <name> (one slot) and prints "held".
 */
import "../../src/store/all-backends.js";
import { writeSync } from "node:fs";
import { HostSlots } from "../../src/runtimes/worker/host-slots.js";

const slot = await new HostSlots(1, process.argv[2]).tryAcquire();
writeSync(1, slot ? "held\n" : "taken\n");
// Kept alive: the slot is given back only by the process's death.
setInterval(() => undefined, 1 << 30);
