/**
 * The limit a script command uses for a thread it is given none for (no --limit, no TOKEN_LIMIT): the one recorded
 * by the thread's last compaction when there is one; else the script's default, said to be one. Either way inspect
 * and compact (a dry run) give one answer: inspect's "compactable" is compact's own verdict.
 */
import { HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createAgent } from "langchain";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { createRandom } from "../../scripts/workload/random.js";
import { prose } from "../../scripts/workload/text.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { runScript } from "../support/run-script.js";

const dir = mkdtempSync(join(tmpdir(), "compaction-script-limit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The quickstart's agent (createAgent, no tools) under a wrapper with `trigger` tokens, `turns` long turns. */
async function quickstartThread(db: string, thread: string, trigger: number, turns: number): Promise<void> {
  const random = createRandom(7);
  const checkpointer = SqliteSaver.fromConnString(db);
  const model = new ScriptedChatModel({ reply: () => ({ content: prose(random, 60) }) });
  const app = new CompactingSupervisor(createAgent({ model, tools: [], checkpointer }), {
    trigger: { tokens: trigger },
    background: false,
    env: {},
  });
  for (let turn = 0; turn < turns; turn++)
    await app.invoke(
      { messages: [new HumanMessage(`Question ${turn}: ${prose(random, 40)}`)] },
      { configurable: { thread_id: thread } },
    );
  await app.close();
  checkpointer.db.close();
}

async function answers(db: string, thread: string) {
  const inspected = JSON.parse((await runScript(["inspect", thread, "--db", db, "--json"])).stdout);
  const dry = JSON.parse((await runScript(["compact", thread, "--db", db, "--dry-run", "--json"])).stdout);
  return { inspected, dry };
}

it("a thread no compaction wrote: the script's default, said to be one, and one answer from inspect and compact", async () => {
  const db = join(dir, "quickstart.sqlite");
  // The quickstart's limit, 32,000; the thread holds ~20,000 tokens in 20 messages: never compacted.
  await quickstartThread(db, "support-42", 32_000, 10);
  const { inspected, dry } = await answers(db, "support-42");
  expect(inspected.messages).toHaveLength(20);
  expect(inspected.tokens).toBeGreaterThan(15_000);
  expect(inspected.tokens).toBeLessThan(32_000);
  expect(inspected.compactable, `${inspected.reason} / ${dry.reason}`).toBe(dry.status === "dry-run");
  expect(inspected.limitSource).toBe("default");
  const human = await runScript(["inspect", "support-42", "--db", db]);
  expect(human.stdout).toMatch(/limit 4,000 \(the script's default: pass --limit with the thread's own trigger\)/);
});

it("a thread a compaction wrote: every command uses the limit that compaction recorded", async () => {
  const db = join(dir, "compacted.sqlite");
  await quickstartThread(db, "support-43", 12_000, 12);
  const { inspected, dry } = await answers(db, "support-43");
  expect(inspected.summary.provenance.limit).toBe(12_000);
  expect(inspected.limit).toBe(12_000);
  expect(inspected.limitSource).toBe("recorded");
  expect(inspected.compactable, `${inspected.reason} / ${dry.reason}`).toBe(dry.status === "dry-run");
  // Under its own limit after the wrapper's compaction: nothing to do, by either command.
  expect(inspected.overLimit).toBe(false);
  expect(dry.status).toBe("skipped");
  expect(dry.reason).toMatch(/not over the limit of 12,000 \(recorded by the thread's last compaction\)/);
  // A limit given wins over the recorded one.
  const given = JSON.parse(
    (await runScript(["inspect", "support-43", "--db", db, "--json", "--limit", "3000"])).stdout,
  );
  expect([given.limit, given.limitSource]).toEqual([3_000, "flag"]);
});
