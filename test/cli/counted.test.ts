/**
 * The script's list and inspect count a head as the runtimes do, and say which count they show: the provider's
 * figure of the last call plus what followed ("provider") where the last reply carries usage metadata, else the
 * tokenizer's ("tokenizer").
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { seedHead } from "../../scripts/workload/seed-head.js";
import { runScriptInProcess } from "../support/in-process-script.js";
import { createAgent } from "langchain";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";

let dir: string;
let db: string;
const counter = new TokenCounter({ model: "gpt-4o" });

function conversation(figures: boolean): BaseMessage[] {
  const messages: BaseMessage[] = [];
  for (let turn = 0; turn < 4; turn++) {
    messages.push(
      new HumanMessage({
        id: `q${turn}`,
        content: `Turn ${turn}: where is parcel PX-${700 + turn}, and who cleared it at customs?`,
      }),
    );
    const input = counter.countMessages(messages);
    messages.push(
      new AIMessage({
        id: `a${turn}`,
        content: `Parcel PX-${700 + turn} cleared in Lisbon.`,
        ...(figures
          ? { usage_metadata: { input_tokens: Math.round(input * 1.3), output_tokens: 9, total_tokens: 0 } }
          : {}),
      }),
    );
  }
  messages.push(new HumanMessage({ id: "next", content: "And the VAT on all four?" }));
  return messages;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "compaction-counted-"));
  db = join(dir, "counted.sqlite");
  const saver = SqliteSaver.fromConnString(db);
  await seedHead(saver, "with-figures", conversation(true));
  await seedHead(saver, "without", conversation(false));
  saver.db.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("list and inspect say which count they show, and show the provider's where the last reply carries it", async () => {
  const list = JSON.parse((await runScriptInProcess(["list", "--db", db, "--json"])).stdout) as {
    threads: Array<{ threadId: string; tokens: number; counted: string }>;
  };
  const withFigures = list.threads.find((thread) => thread.threadId === "with-figures")!;
  const without = list.threads.find((thread) => thread.threadId === "without")!;
  expect(withFigures.counted).toBe("provider");
  expect(without).toMatchObject({ counted: "tokenizer", tokens: counter.countMessages(conversation(false)) });
  // The provider counts 30% more than the tokenizer here, and the list says so.
  expect(withFigures.tokens / without.tokens).toBeCloseTo(1.3, 1);
  const inspect = JSON.parse((await runScriptInProcess(["inspect", "with-figures", "--db", db, "--json"])).stdout) as {
    tokens: number;
    counted: string;
  };
  expect(inspect).toMatchObject({ tokens: withFigures.tokens, counted: "provider" });
  const human = await runScriptInProcess(["inspect", "without", "--db", db]);
  expect(human.stdout).toMatch(/total [\d,]+ tokens \(the tokenizer's count\)/);
});

it("a head at rest after a compaction counts as the tokenizer does: its last reply was made before the summary", async () => {
  const file = join(dir, "compacted.sqlite");
  const saver = SqliteSaver.fromConnString(file);
  const scale = 1.22;
  const provider = new TokenCounter({ model: "gpt-4" });
  const model = new ScriptedChatModel({
    modelName: "claude-sonnet",
    reply: (messages) => ({ content: `Noted ${messages.length} messages; parcel total ${messages.length * 37} EUR.` }),
    usage: (messages) => ({
      input_tokens: Math.round(provider.countMessages(messages) * scale),
      output_tokens: 20,
      total_tokens: 0,
    }),
  });
  let compacted = 0;
  const supervisor = new CompactingSupervisor(createAgent({ model, tools: [], checkpointer: saver }), {
    trigger: { tokens: 600 },
    lateness: 0,
    env: {},
    onCompaction: (report) => void (report.status === "compacted" && compacted++),
  });
  const config = { configurable: { thread_id: "at-rest" } };
  // Turns until one ends in a compaction: the head then ends with that turn's reply, kept after the new summary.
  for (let turn = 0; compacted === 0; turn++) {
    expect(turn).toBeLessThan(40);
    await supervisor.invoke(
      {
        messages: [
          new HumanMessage({
            id: `ask-${turn}`,
            content: `Turn ${turn}: where is parcel PX-${700 + turn}, who cleared it at customs in Lisbon, and what was the VAT on it?`,
          }),
        ],
      },
      config,
    );
    await supervisor.flush();
  }
  const head = (await saver.getTuple({ configurable: { thread_id: "at-rest", checkpoint_ns: "" } }))!.checkpoint
    .channel_values.messages as BaseMessage[];
  saver.db.close();
  expect(isSummaryMessage(head.find((message) => message.getType() !== "system"))).toBe(true);
  // That reply's figure counted the thread before the compaction: far more than the head holds now.
  const last = head.at(-1) as AIMessage;
  expect(Number(last.usage_metadata?.input_tokens)).toBeGreaterThan(counter.countMessages(head) * scale * 1.1);
  // The script runs in a new process: it has learned nothing, and does not take that figure for the head's count.
  const list = JSON.parse((await runScriptInProcess(["list", "--db", file, "--json"])).stdout) as {
    threads: Array<{ threadId: string; tokens: number; counted: string }>;
  };
  expect(list.threads.find((thread) => thread.threadId === "at-rest")).toMatchObject({
    counted: "tokenizer",
    tokens: counter.countMessages(head),
  });
});
