/**
 * The in-graph runtime on LangGraph's real Agent Server, run locally from npm (`langgraphjs dev`, in memory,
 * offline): the server loads test/server/fixture/langgraph.json, whose createAgent graph carries
 * compactionMiddleware; 40 turns go through @langchain/langgraph-sdk's `runs.stream` with "messages-tuple" and
 * "values". The thread is compacted, the streamed tokens are the model's (the summarizer's never show, nor the
 * compaction's removal and summary), the transcript in the server's store and the state hold every message, and
 * search_history finds a compacted fact.
 *
 * Run by `npm run test:server` (called from .ci/run): starting the server takes a while on a loaded machine.
 */
import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRANSCRIPT_NAMESPACE, transcriptNamespace } from "../../src/store/recall-index/base-store-index.js";
import { PROVENANCE_KEY } from "../../src/messages/summary-message.js";
import { turnText } from "../support/in-graph-suite.js";
import { readConversation, type CompactionStreamEvent } from "../../src/client.js";
import { SUMMARY_MARK } from "./fixture/agent.js";
import { FIXTURE, freePort, startFixtureServer as startServer } from "./server-process.js";

const TURNS = 40;

interface WireMessage {
  id?: string;
  type: string;
  content: unknown;
  name?: string;
  additional_kwargs?: Record<string, unknown>;
}

const text = (content: unknown): string => (typeof content === "string" ? content : JSON.stringify(content));

describe("compactionMiddleware on the Agent Server (langgraphjs dev, in memory)", () => {
  let server: { child: ChildProcess; output: () => string };
  let client: Client;

  beforeAll(async () => {
    const port = await freePort();
    server = await startServer(port);
    client = new Client({ apiUrl: `http://127.0.0.1:${port}` });
  });
  afterAll(() => {
    if (server?.child.pid) process.kill(-server.child.pid, "SIGTERM");
    rmSync(join(FIXTURE, ".langgraph_api"), { recursive: true, force: true });
  });

  it("compacts a 40-turn thread; streams the model's tokens only; the store and the state hold every message; search finds a compacted fact", async () => {
    const thread = await client.threads.create();
    // Streamed items by the node that produced them: the model's tokens, the tools' results, the middleware's update.
    const streamed = new Map<string, string>();
    const updates: WireMessage[] = [];
    const seen = new Map<string, WireMessage>();
    let values: { messages: WireMessage[] } | undefined;
    let summaries = 0;
    const summaryIds: string[] = [];
    const events: CompactionStreamEvent[] = [];
    const say = async (id: string, content: string) => {
      for await (const part of client.runs.stream(thread.thread_id, "agent", {
        input: { messages: [{ type: "human", id, content }] },
        streamMode: ["messages-tuple", "values", "custom"],
      })) {
        if (part.event === "messages") {
          const [chunk, metadata] = part.data as [WireMessage, { langgraph_node?: string }];
          if (chunk.type === "remove" || chunk.additional_kwargs?.[PROVENANCE_KEY] !== undefined) updates.push(chunk);
          else if (metadata.langgraph_node === "model_request")
            streamed.set(chunk.id!, (streamed.get(chunk.id!) ?? "") + text(chunk.content));
          else expect(chunk.type).toBe("tool");
        } else if (part.event === "custom") {
          events.push(part.data as CompactionStreamEvent);
        } else if (part.event === "values") {
          values = part.data as { messages: WireMessage[] };
          for (const message of values.messages) {
            if (message.additional_kwargs?.[PROVENANCE_KEY]) continue;
            if (message.id && !seen.has(message.id)) seen.set(message.id, message);
          }
          if (values.messages.some((message) => message.additional_kwargs?.[PROVENANCE_KEY])) summaries++;
          const summary = values.messages.find((message) => message.additional_kwargs?.[PROVENANCE_KEY]);
          if (summary?.id && summaryIds.at(-1) !== summary.id) summaryIds.push(summary.id);
        }
      }
    };
    for (let index = 0; index < TURNS - 1; index++) await say(`t-${index}`, turnText(index));
    await say("t-ask", "search ord_1003 invoice total");

    // Compacted, on the server, by the middleware.
    expect(summaries).toBeGreaterThan(0);
    const state = (await client.threads.getState(thread.thread_id)).values as { messages: WireMessage[] };
    expect(state.messages.some((message) => message.additional_kwargs?.[PROVENANCE_KEY])).toBe(true);
    expect(state.messages.length).toBeLessThan(seen.size);
    expect(text(state.messages.find((message) => message.additional_kwargs?.[PROVENANCE_KEY])?.content)).toContain(
      SUMMARY_MARK,
    );

    // The model's tokens: each streamed answer is the message the state holds, token for token, and no token of
    // the summary model ever shows (it runs with no callbacks, tagged nostream).
    const answers = [...seen.values()].filter((message) => message.type === "ai");
    expect(answers.length).toBeGreaterThanOrEqual(TURNS);
    for (const answer of answers) expect(streamed.get(answer.id!)).toBe(text(answer.content));
    expect([...streamed.keys()].filter((id) => !seen.has(id))).toEqual([]);
    // And nothing else: the compaction's update (the removal, the summary) never travels in the messages stream.
    expect(updates.map((update) => JSON.stringify(update).slice(0, 200))).toEqual([]);

    // Nothing lost: the transcript in the server's store, plus the state, is every message of the thread.
    const items = await client.store.searchItems(transcriptNamespace(thread.thread_id), { limit: 1_000 });
    expect(items.items.length).toBeGreaterThan(0);
    expect(items.items.every((item) => item.namespace.slice(0, 2).join("/") === TRANSCRIPT_NAMESPACE.join("/"))).toBe(
      true,
    );
    const kept = new Set([...items.items.map((item) => item.key), ...state.messages.map((message) => message.id)]);
    expect([...seen.keys()].filter((id) => !kept.has(id))).toEqual([]);

    // One compaction event per compaction on the custom stream, naming the summary each one wrote.
    expect(summaryIds.length).toBeGreaterThanOrEqual(2);
    expect(events.map((event) => [event.type, event.summaryId])).toEqual(summaryIds.map((id) => ["compaction", id]));

    // The person's view, read from the browser entry through the SDK: every message the thread ever held, in order,
    // each compaction's messages marked by the compaction that took them out.
    const conversation = await readConversation(client, thread.thread_id, { limit: 10_000 });
    const shown = conversation.messages.filter((line) => line.source !== "summary");
    expect(shown.map((line) => line.message.id)).toEqual([...seen.keys()]);
    for (const line of shown) expect(text(line.message.content)).toBe(text(seen.get(line.message.id!)!.content));
    expect(new Set(shown.flatMap((line) => (line.compaction ? [line.compaction] : []))).size).toBeGreaterThanOrEqual(2);

    // search_history, run by the agent on the server, found the fact of turn 3 that compaction took out.
    expect(items.items.map((item) => item.key)).toContain("t-3");
    const found = state.messages.findLast((message) => message.type === "tool" && message.name === "search_history");
    expect(text(found?.content)).toContain("ord_1003 is 51 EUR");
  });
});
