/**
 * Prune on a createSupervisor thread: the sub-agents' tool calls and results live only in their subgraph namespaces
 * (outputMode "last_message"), never in the root conversation. A prune keeps every namespace holding a message that
 * neither a kept checkpoint nor the transcript holds: afterwards every message of every namespace is still in a
 * stored checkpoint or in the transcript.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pruneThread } from "../../src/engine/prune.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";
import { createTeam } from "../support/team.js";

const config = { configurable: { thread_id: "team" } };

/** The thread's namespaces, as the saver stores them. */
async function namespacesOf(store: TestStore): Promise<string[]> {
  const { saver } = store;
  if (saver instanceof SqliteSaver)
    return (
      saver.db.prepare(`SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = 'team'`).all() as Array<{
        checkpoint_ns: string;
      }>
    ).map((row) => row.checkpoint_ns);
  if (saver instanceof PostgresSaver) {
    const client = new pg.Client({ connectionString: store.location.url });
    await client.connect();
    try {
      const result = await client.query(
        `SELECT DISTINCT checkpoint_ns FROM "${store.location.schema}".checkpoints WHERE thread_id = 'team'`,
      );
      return result.rows.map((row: { checkpoint_ns: string }) => row.checkpoint_ns);
    } finally {
      await client.end();
    }
  }
  return Object.keys((saver as MemorySaver).storage.team ?? {});
}

/** Every message id held by a stored checkpoint of the thread, in any namespace. */
async function storedIds(store: TestStore): Promise<Set<string>> {
  const saver: BaseCheckpointSaver = store.saver;
  const ids = new Set<string>();
  for (const namespace of await namespacesOf(store)) {
    for await (const tuple of saver.list({ configurable: { thread_id: "team", checkpoint_ns: namespace } })) {
      for (const message of (tuple.checkpoint.channel_values.messages as BaseMessage[] | undefined) ?? [])
        if (message.id) ids.add(message.id);
    }
  }
  return ids;
}

for (const kind of SAVER_KINDS) {
  describe(`prune on a createSupervisor thread (${kind})`, () => {
    let store: TestStore;
    beforeEach(async () => void (store = await createStore(kind)));
    afterEach(async () => await store.close());

    it("every message of every namespace is in a kept checkpoint or the transcript afterwards", async () => {
      const team = createTeam(store.saver);
      for (let index = 0; index < 6; index++) {
        const text =
          index % 2 === 0
            ? `Find the refund rule for case ${index}, please.`
            : `Fix the rounding bug in module ${index}.`;
        await team.invoke({ messages: [new HumanMessage({ id: `ask-${index}`, content: text })] }, config);
      }
      const before = await storedIds(store);
      expect((await namespacesOf(store)).filter((namespace) => namespace !== "").length).toBeGreaterThan(0);
      const report = await pruneThread(store.saver, config, { keep: 1 });
      expect(report.status).toBe("pruned");
      const after = await storedIds(store);
      for (const line of (await readTranscript(store.saver, config, { limit: 10_000 })).messages)
        if (line.message.id) after.add(line.message.id);
      expect([...before].filter((id) => !after.has(id))).toEqual([]);
    });
  });
}
