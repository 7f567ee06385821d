/**
 * compactionMiddleware on a real createAgent graph (a scripted model, a tool) over MemorySaver, a SQLite file and
 * Postgres: the in-graph behaviour suite (test/support/in-graph-suite.ts), and bad options.
 */
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { lookupPolicy, lookupTool } from "../support/agents.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { inGraphBehaviour } from "../support/in-graph-suite.js";
import { createStore, SAVER_KINDS } from "../support/savers.js";

inGraphBehaviour({
  name: "compactionMiddleware on createAgent",
  kinds: SAVER_KINDS,
  build: (saver, options) =>
    createAgent({
      model: new ScriptedChatModel({ reply: lookupPolicy }),
      tools: [lookupTool],
      checkpointer: saver,
      systemPrompt: "You are the billing assistant.",
      middleware: options ? [compactionMiddleware(options)] : [],
    }),
});

describe("compactionMiddleware refuses bad options", () => {
  it("names the option and its value", async () => {
    const store = await createStore("memory");
    expect(() => compactionMiddleware({ checkpointer: store.saver, env: {} })).toThrow(/tokenLimit/);
    expect(() => compactionMiddleware({ checkpointer: store.saver, tokenLimit: -5, env: {} })).toThrow(/tokenLimit.*-5/);
    expect(() => compactionMiddleware({ tokenLimit: 900, background: "yes" as unknown as boolean, env: {} })).toThrow(/background.*yes/);
    await store.close();
  });
});
