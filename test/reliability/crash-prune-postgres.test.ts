/**
 * Crash safety of a prune on Postgres: a child process prunes a thread (compacted once, with messages the graph
 * removed itself, so the prune writes to the transcript first) and kills itself with SIGKILL at each phase of the
 * prune's transaction — the head checked, the transcript written, every delete run before COMMIT — then once more
 * uninterrupted. After each: the head is the same, the thread is as it was or pruned with nothing missing (all or
 * nothing), every message ever stored is in a checkpoint or the transcript, the next turn and a new prune work.
 */
import { HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { randomUUID } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { auditThread } from "../../src/engine/audit.js";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { pruneThread } from "../../src/engine/prune.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { generateHistory } from "../../scripts/workload/history.js";
import { createTestAgent } from "../support/agents.js";
import { runStepChild, type StepRun } from "../support/step-child.js";
import { recordFigures } from "../support/reliability.js";

const THREAD = "crash-prune";
const PHASES = ["prune:in-transaction", "prune:backfilled", "prune:deleted", "-"];
const config = { configurable: { thread_id: THREAD } };

function runChild(url: string, schema: string, killAt: string): Promise<StepRun> {
  return runStepChild("test/support/prune-child.ts", [url, schema, THREAD, killAt]);
}

/** A fresh schema holding the thread to prune; returns what the audit says of it before any prune, and its head. */
async function prepare(
  url: string,
  schema: string,
): Promise<{ ever: Set<string>; head: string; problems: unknown[]; removed: number }> {
  const saver = PostgresSaver.fromConnString(url, { schema });
  await saver.setup();
  const { agent } = createTestAgent(saver);
  await agent.updateState(config, { messages: generateHistory({ seed: 13, messages: 120 }) }, "agent");
  await new HistoryManager({ checkpointer: saver, env: {} }).compactThread(config, { compactionRatio: 0.3 });
  const head = (await saver.getTuple(config))!.checkpoint.channel_values.messages as BaseMessage[];
  const removed = head
    .filter((message) => message.getType() === "human")
    .slice(0, 3)
    .map((message) => message.id!);
  await agent.updateState(config, { messages: removed.map((id) => new RemoveMessage({ id })) }, "agent");
  for (let turn = 0; turn < 2; turn++)
    await agent.invoke({ messages: [new HumanMessage({ id: `after-${turn}`, content: `turn ${turn}` })] }, config);
  const ever = new Set<string>();
  for (const { messages } of await threadStoreFor(saver).listCheckpoints(THREAD))
    for (const message of messages) if (!getSummaryProvenance(message)) ever.add(message.id!);
  const { problems, removedByApplication } = await auditThread(saver, config);
  const id = (await saver.getTuple(config))!.checkpoint.id;
  await saver.end();
  return { ever, head: id, problems, removed: removedByApplication };
}

describe("crash safety of a prune (SIGKILL inside its transaction, Postgres)", () => {
  it("all or nothing at every phase: the head stays, every message stays, the next turn and prune work", async () => {
    const url = inject("postgresUrl");
    const outcomes = { before: 0, after: 0 };
    for (const killAt of PHASES) {
      const schema = `prune_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
      const { ever, head, problems, removed } = await prepare(url, schema);
      // The graph's own removal: held by older checkpoints only, until a prune writes the transcript.
      expect(problems).toEqual([]);
      expect(removed).toBeGreaterThan(0);
      const { steps, signal } = await runChild(url, schema, killAt);
      if (killAt === "-") {
        expect(signal).toBeNull();
        expect(steps.at(-1)).toBe("committed:pruned");
      } else {
        expect(signal, killAt).toBe("SIGKILL");
        expect(steps.at(-1)).toBe(killAt);
      }
      const saver = PostgresSaver.fromConnString(url, { schema });
      expect((await saver.getTuple(config))!.checkpoint.id, killAt).toBe(head);
      const held = new Set(
        (await readTranscript(saver, config, { limit: 10_000 })).messages.map((line) => line.message.id!),
      );
      const checkpoints = await threadStoreFor(saver).listCheckpoints(THREAD);
      for (const { messages } of checkpoints) for (const message of messages) held.add(message.id!);
      expect(
        [...ever].filter((id) => !held.has(id)),
        killAt,
      ).toEqual([]);
      const audit = await auditThread(saver, config);
      if (checkpoints.length === 1) {
        outcomes.after++;
        expect(audit.problems, killAt).toEqual([]);
        expect(audit.removedByApplication, killAt).toBe(0);
      } else {
        outcomes.before++;
        expect(audit.problems, killAt).toEqual(problems);
        expect(audit.removedByApplication, killAt).toBe(removed);
      }
      await createTestAgent(saver).agent.invoke(
        { messages: [new HumanMessage({ id: "next", content: "the turn after the crash" })] },
        config,
      );
      expect((await pruneThread(saver, config, { keep: 1 })).status).toBe("pruned");
      expect((await auditThread(saver, config)).problems).toEqual([]);
      await saver.end();
    }
    recordFigures("crash", { postgresPrunePhases: PHASES.length - 1, postgresPruneOutcomes: outcomes });
    expect(outcomes.before).toBe(PHASES.length - 1);
    expect(outcomes.after).toBe(1);
  }, 300_000);
});
