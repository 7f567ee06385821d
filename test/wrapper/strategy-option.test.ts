/**
 * The wrapper's `strategy` option: a pipeline (clear-tool-results → summarize) and a dropping strategy
 * (sliding-window) force-written through the same compare-and-swap, with nothing lost (auditThread).
 */
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { auditThread, CompactingSupervisor, getSummaryProvenance, type CompactionReport } from "../../src/index.js";
import { createPipeline, createStrategy, type ThreadStrategy } from "../../src/strategies.js";
import { validateHistory } from "../../src/internal.js";
import { editOf } from "../../src/messages/markers.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { ToolOutputArchive } from "../../src/archive/archive.js";

const logs = tool(
  async ({ service }: { service: string }) =>
    Array.from({ length: 30 }, (_, line) => `${service} ${line}: request took ${line * 3} ms`).join("\n"),
  {
    name: "read_logs",
    description: "Read a service's logs.",
    schema: z.object({ service: z.string() }),
  },
);

function agent(saver: SqliteSaver) {
  const model = new ScriptedChatModel({
    reply: (messages) => {
      const last = messages.at(-1)!;
      if (ToolMessage.isInstance(last))
        return { content: `The logs of ${String(last.content).split(" ")[0]} look normal.` };
      return { toolCalls: [{ name: "read_logs", args: { service: `svc-${messages.length}` } }] };
    },
  });
  return createReactAgent({ llm: model, tools: [logs], checkpointer: saver });
}

describe("CompactingSupervisor with a strategy", () => {
  let dir: string;
  let saver: SqliteSaver;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "compaction-strategy-"));
    saver = SqliteSaver.fromConnString(join(dir, "threads.sqlite"));
  });
  afterEach(() => {
    saver.db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(strategy: ThreadStrategy, turns = 14) {
    const reports: CompactionReport[] = [];
    const supervisor = new CompactingSupervisor(agent(saver), {
      trigger: { tokens: 2_500 },
      compactionRatio: 0.3,
      background: false,
      strategy,
      onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
    });
    const config = { configurable: { thread_id: "logs" } };
    for (let turn = 0; turn < turns; turn++) {
      await supervisor.invoke(
        { messages: [new HumanMessage({ id: `u${turn}`, content: `Check service ${turn}, please.` })] },
        config,
      );
      const audit = await auditThread(saver, config);
      expect(audit.problems, `after turn ${turn}`).toEqual([]);
    }
    const head = (await supervisor.getState(config)).values.messages as BaseMessage[];
    expect(validateHistory(head)).toEqual([]);
    return { reports, head };
  }

  it("clears old tool results first and summarizes only when that is not enough", async () => {
    const { reports, head } = await run(
      createPipeline([createStrategy("clear-tool-results"), createStrategy("summarize")]),
      30,
    );
    expect(reports.length).toBeGreaterThan(1);
    expect(reports.every((report) => report.summarizer === "clear-tool-results → summarize")).toBe(true);
    expect(
      reports.some(
        (report) =>
          /^clear-tool-results → summarize: clear-tool-results: cleared \d+/.test(report.reason) &&
          !report.reason.includes("; summarize: "),
      ),
    ).toBe(true);
    expect(reports.some((report) => report.reason.includes("; summarize: "))).toBe(true);
    expect(head.filter((message) => ToolMessage.isInstance(message) && !editOf(message)).length).toBeGreaterThanOrEqual(
      3,
    );
  });

  it("marks what a dropping strategy removed, so every message stays accounted for", async () => {
    const { head } = await run(createStrategy("sliding-window"));
    const marker = head.find((message) => getSummaryProvenance(message)?.summarizer === "sliding-window");
    expect(marker).toBeDefined();
    expect(String(marker!.content)).toMatch(/\d+ earlier message\(s\) were removed from the context by sliding-window/);
    expect(head.find((message) => message.id === "u0")).toBeDefined();
  });

  it("rejects an unknown strategy with a typed error", () => {
    expect(
      () => new CompactingSupervisor(agent(saver), { trigger: { tokens: 2_500 }, strategy: "shrink" as never }),
    ).toThrow(/strategy must be a strategy or a pipeline .*got "shrink"/);
  });
});

describe("deepagents-style state (todos and files channels)", () => {
  it("is never touched by a strategy, the archive or a summary", async () => {
    const dir = mkdtempSync(join(tmpdir(), "compaction-deepagents-"));
    const saver = SqliteSaver.fromConnString(join(dir, "threads.sqlite"));
    const { createCustomGraph } = await import("../support/custom-graph.js");
    const { SqliteStore } = await import("../../src/sqlite.js");
    const reports: CompactionReport[] = [];
    const supervisor = new CompactingSupervisor(createCustomGraph(saver), {
      trigger: { tokens: 400 },
      background: false,
      strategy: createPipeline([createStrategy("clear-tool-results"), createStrategy("summarize")]),
      archive: new ToolOutputArchive({ store: new SqliteStore(saver.db), thresholdTokens: 50 }),
      onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
    });
    const config = { configurable: { thread_id: "deep" } };
    for (let turn = 0; turn < 12; turn++) {
      const result = await supervisor.invoke(
        {
          messages: [
            new HumanMessage(`Task ${turn}: ${"write the quarterly billing notes and keep the totals. ".repeat(4)}`),
          ],
        },
        config,
      );
      const after = (await supervisor.getState(config)).values;
      expect(after.todos).toEqual(result.todos);
      expect(after.files).toEqual(result.files);
      expect((await auditThread(saver, config)).problems).toEqual([]);
    }
    expect(reports.length).toBeGreaterThan(2);
    expect(Object.keys((await supervisor.getState(config)).values.files)).toHaveLength(12);
    saver.db.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
