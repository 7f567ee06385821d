/** Checkpoint ids carry their time (UUIDv6): a worker tells idle threads and builds its cursor from ids alone. */
import { uuid6 } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { checkpointIdAt, checkpointTime } from "../../src/store/checkpoint-time.js";
import { idAfter } from "../../src/store/ids.js";

describe("checkpoint ids and time", () => {
  it("reads the time LangGraph put in an id, to the millisecond, and the time of the id that follows it", () => {
    const before = Date.now();
    const id = uuid6(-1);
    const after = Date.now();
    const time = checkpointTime(id)!;
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(after);
    expect(checkpointTime(idAfter(id, 1))).toBe(time);
    expect(checkpointTime("not-a-uuid")).toBeUndefined();
    expect(checkpointTime("1f1e7eb5-e2fd-4580-8fff-9e0416e41692")).toBeUndefined();
  });

  it("makes the lowest id of a moment: ids made then or later sort after it, ids made before sort before", () => {
    const id = uuid6(-1);
    const time = checkpointTime(id)!;
    expect(checkpointIdAt(time) <= id).toBe(true);
    expect(checkpointIdAt(time + 1) > id).toBe(true);
    expect(checkpointTime(checkpointIdAt(time))).toBe(time);
  });
});
