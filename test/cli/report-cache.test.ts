/**
 * The script's `report` shows what compaction costs with the prompt cache: each compaction's `rewrittenTokens`, read
 * back from the checkpoints, equals what the wrapper's own report said when it wrote it; each turn's `cached` is the
 * prefix of the turn before that it kept (all of it without a compaction between, almost none after one), and
 * `cacheShare` their share of the turns' tokens.
 */
import { HumanMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { CompactedReport } from "../../src/engine/report.js";
import type { ThreadReport } from "../../src/cli/report-data.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { runScript } from "../support/run-script.js";
import { createStore, type TestStore } from "../support/savers.js";

let store: TestStore;
beforeEach(async () => (store = await createStore("sqlite")));
afterEach(async () => await store.close());

it("report --json: the cache each compaction rewrote, and each turn's cached prefix", async () => {
  const graph = createReactAgent({
    llm: new ScriptedChatModel({
      reply: () => ({ content: "Noted: the invoice total stays 4,200 EUR, approved by Alice Moreau on 2026-03-14." }),
    }),
    tools: [],
    checkpointer: store.saver,
  });
  const written: CompactedReport[] = [];
  const supervisor = new CompactingSupervisor(graph, {
    trigger: { tokens: 600 },
    background: false,
    onCompaction: (report) => void (report.status === "compacted" && written.push(report)),
  });
  const config = { configurable: { thread_id: "cached" } };
  for (let turn = 0; turn < 30; turn++)
    await supervisor.invoke(
      { messages: [new HumanMessage(`Question ${turn}: who approved invoice INV-${turn}?`)] },
      config,
    );
  expect(written.length).toBeGreaterThan(1);

  const run = await runScript(["report", "cached", "--db", store.location.path!, "--limit", "600", "--json"]);
  expect(run.code, run.stderr).toBe(0);
  const report = JSON.parse(run.stdout) as ThreadReport;
  expect(report.compactions.map((compaction) => compaction.rewrittenTokens)).toEqual(
    written.map((compaction) => compaction.rewrittenTokens),
  );

  const turns = report.points.filter((point) => point.kind === "turn");
  let compactedSince = false;
  let previous = turns[0]!;
  for (const point of report.points.slice(report.points.indexOf(turns[0]!) + 1)) {
    if (point.kind === "compaction") compactedSince = true;
    if (point.kind !== "turn") continue;
    if (compactedSince) expect(point.cached).toBe(0);
    // Without a compaction between, the turn before is all there still, but for its reply priming.
    else expect(point.cached).toBe(previous.tokens - 3);
    compactedSince = false;
    previous = point;
  }
  const share =
    turns.slice(1).reduce((sum, point) => sum + point.cached!, 0) /
    turns.slice(1).reduce((sum, point) => sum + point.tokens, 0);
  expect(report.cacheShare).toBeCloseTo(share, 10);
  expect(report.cacheShare).toBeGreaterThan(0.5);
  expect(report.cacheShare).toBeLessThan(1);
});
