/**
 * The script compacting in a loop while another process appends turns through the real team graph: every appended
 * turn ends up in the head or in a summary's provenance. The heavy version (two turn processes, background
 * compaction, both backends, sizes for test:reliability) is test/reliability/racing-writers.test.ts.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { compactThread, runTs } from "../support/run-script.js";

const RACED = 12;
let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "compaction-cli-race-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("concurrency", () => {
  it("never loses a turn appended by another process while the script compacts", async () => {
    const path = join(dir, "race.sqlite");
    const seed = await runTs("test/support/append-turns.ts", [path, "race", "8", "seed"]);
    expect(seed.code, seed.stderr).toBe(0);
    // The appender stops after half its turns until the script has compacted the idle thread once, so every run has
    // compactions racing turns on both sides of one that cannot have raced (how many race depends on the machine's load).
    const gate = mkdtempSync(join(dir, "gate-"));
    const appender = runTs("test/support/append-turns.ts", [path, "race", String(RACED), "raced"], {
      APPEND_GATE: `${gate}:${RACED / 2}`,
    });
    const compactions: number[] = [];
    let finished = false;
    void appender.then(() => (finished = true));
    while (!finished) {
      const idle = existsSync(join(gate, "waiting")) && !existsSync(join(gate, "open"));
      const result = await compactThread(["compact", "race", "--db", path, "--json"]);
      compactions.push(result.code);
      if (idle) {
        expect(result.code, result.stderr).toBe(0);
        writeFileSync(join(gate, "open"), "");
      }
    }
    expect((await appender).code).toBe(0);
    expect(existsSync(join(gate, "open"))).toBe(true);
    expect(compactions.every((code) => [0, 6, 9].includes(code))).toBe(true);

    const saver = SqliteSaver.fromConnString(path);
    const head = (await saver.getTuple({ configurable: { thread_id: "race", checkpoint_ns: "" } }))!.checkpoint
      .channel_values.messages as BaseMessage[];
    const covered = new Set<string>();
    for await (const tuple of saver.list({ configurable: { thread_id: "race", checkpoint_ns: "" } })) {
      for (const message of (tuple.checkpoint.channel_values.messages as BaseMessage[]) ?? []) {
        for (const id of getSummaryProvenance(message)?.coveredIds ?? []) covered.add(id);
      }
    }
    const headIds = head.map((message) => message.id);
    expect(new Set(headIds).size).toBe(headIds.length);
    const expected = [
      ...Array.from({ length: 8 }, (_, index) => `seed-${index}`),
      ...Array.from({ length: RACED }, (_, index) => `raced-${index}`),
    ];
    const missing = expected.filter((id) => !headIds.includes(id) && !covered.has(id));
    expect(missing).toEqual([]);
    saver.db.close();
  });
});
