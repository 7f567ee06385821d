/**
 * `restore` of a checkpoint in the middle of a turn (a tool call without its result) is refused with the exit code
 * of an invalid history (11), not the busy thread's (6), and a message that says which.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { EXIT } from "../../src/cli/exit-codes.js";
import { createTestAgent, runTurns } from "../support/agents.js";
import { runScript } from "../support/run-script.js";

let dir: string;
let db: string;
let midTurn: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "compaction-restore-"));
  db = join(dir, "app.sqlite");
  const saver = SqliteSaver.fromConnString(db);
  const { agent } = createTestAgent(saver);
  // Turn 2 is a lookup: the model asks for a tool, the tool answers, the model answers.
  await runTurns(agent, "tools", 3);
  for await (const tuple of saver.list({ configurable: { thread_id: "tools", checkpoint_ns: "" } })) {
    const last = (tuple.checkpoint.channel_values.messages as BaseMessage[] | undefined)?.at(-1);
    if (last && AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0) midTurn = tuple.checkpoint.id;
  }
  saver.db.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("restore of a mid-turn checkpoint exits 11 and says the history is invalid", async () => {
  expect(midTurn).toBeDefined();
  const result = await runScript(["restore", "tools", "--db", db, "--checkpoint", midTurn]);
  expect(result.code, result.stderr).toBe(EXIT.invalidHistory);
  expect(result.stderr).toMatch(/invalid|tool call/i);
});
