/**
 * The tool-output archive on a SqliteStore in the checkpoints' file: large outputs become pointers (head and tail
 * excerpts, sizes, key), the store holds the exact text, and the reader tool pages it back.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryStore, type BaseStore } from "@langchain/langgraph-checkpoint";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { randomUUID } from "node:crypto";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { ToolOutputArchive } from "../../src/archive/archive.js";
import { createArchiveReaderTool } from "../../src/archive/reader-tool.js";
import { SqliteStore } from "../../src/archive/sqlite-store.js";
import { pinMessage } from "../../src/index.js";
import { validateHistory } from "../../src/internal.js";
import { editOf } from "../../src/messages/markers.js";
import { snapshot } from "../support/arbitrary-history.js";

const dir = mkdtempSync(join(tmpdir(), "compaction-archive-"));
const saver = SqliteSaver.fromConnString(join(dir, "threads.sqlite"));
afterAll(() => (saver.db.close(), rmSync(dir, { recursive: true, force: true })));

const report = (name: string) =>
  `REPORT ${name} START\n${Array.from({ length: 900 }, (_, line) => `${name} line ${line}: revenue ${line * 13} EUR, région Île-de-France ✓`).join("\n")}\nREPORT ${name} END`;

function history(): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage({ id: "u", content: "Fetch the three reports." })];
  ["alpha", "beta", "gamma"].forEach((name, index) => {
    messages.push(
      new AIMessage({
        id: `a${index}`,
        content: "",
        tool_calls: [{ id: `c${index}`, name: "fetch_report", args: { name } }],
      }),
    );
    messages.push(
      new ToolMessage({ id: `t${index}`, tool_call_id: `c${index}`, name: "fetch_report", content: report(name) }),
    );
  });
  messages.push(new AIMessage({ id: "done", content: "Fetched." }));
  return messages;
}

const postgresStores: PostgresStore[] = [];
afterAll(async () => {
  for (const store of postgresStores) await store.stop();
});

describe.each([
  ["SqliteStore", async () => new SqliteStore(saver.db)],
  ["InMemoryStore", async () => new InMemoryStore()],
  [
    "PostgresStore",
    async () => {
      const store = PostgresStore.fromConnString(inject("postgresUrl"), {
        schema: `archive_${randomUUID().replace(/-/g, "").slice(0, 10)}`,
      });
      await store.setup();
      postgresStores.push(store);
      return store;
    },
  ],
] as Array<[string, () => Promise<BaseStore>]>)("ToolOutputArchive on %s", (_, open) => {
  it("replaces large outputs with pointers, keeps the newest and pairs intact, and stores the exact text", async () => {
    const store = await open();
    const archive = new ToolOutputArchive({ store });
    const messages = history();
    const before = snapshot(messages);
    const { messages: result, archived } = await archive.archive(messages, { threadId: "t-1" });
    expect(snapshot(messages)).toBe(before);
    expect(archived).toHaveLength(2);
    expect(validateHistory(result)).toEqual([]);
    const [alpha, beta, gamma] = ["t0", "t1", "t2"].map(
      (id) => result.find((message) => message.id === id) as ToolMessage,
    );
    expect(editOf(gamma!)).toBeUndefined();
    expect(gamma!.content).toBe(report("gamma"));
    for (const [pointer, name, key] of [
      [alpha!, "alpha", archived[0]!],
      [beta!, "beta", archived[1]!],
    ] as const) {
      const text = String(pointer.content);
      expect(pointer.tool_call_id).toBe(name === "alpha" ? "c0" : "c1");
      expect(text).toContain(`key "${key}"`);
      expect(text).toMatch(/fetch_report: \d+ tokens, 902 lines, \d+ characters/);
      expect(text).toContain(report(name).slice(0, 2000));
      expect(text).toContain(report(name).slice(-1000));
      expect(text.length).toBeLessThan(3_500);
      expect((await archive.read(key))!.content).toBe(report(name));
    }
    // Archiving again is a no-op: pointers are not archived twice.
    expect((await archive.archive(result, { threadId: "t-1" })).archived).toEqual([]);
  });

  it("lets the agent read an archived output back, page by page, exactly", async () => {
    const store = await open();
    const archive = new ToolOutputArchive({ store });
    const { archived } = await archive.archive(history(), { threadId: "t-2" });
    const reader = createArchiveReaderTool({ store, pageChars: 5_000 });
    let text = "";
    for (let page = 1; ; page++) {
      const answer = String(await reader.invoke({ key: archived[0]!, page }));
      const header =
        /^\[archived output of fetch_report, key "[^"]+": page (\d+) of (\d+), characters \d+-\d+ of \d+\]\n/.exec(
          answer,
        )!;
      text += answer.slice(header[0].length);
      if (header[1] === header[2]) break;
    }
    expect(text).toBe(report("alpha"));
    expect(String(await reader.invoke({ key: "out_missing" }))).toBe('No archived output with key "out_missing".');
  });

  it("never archives a pinned output, and validates its options", async () => {
    const store = await open();
    const messages = history();
    messages[2] = pinMessage(messages[2]!);
    const { archived, messages: result } = await new ToolOutputArchive({ store }).archive(messages);
    expect(archived).toHaveLength(1);
    expect(result[2]!.content).toBe(report("alpha"));
    expect(() => new ToolOutputArchive({ store, thresholdTokens: 0 })).toThrow(
      /archive.thresholdTokens must be an integer >= 1; got 0/,
    );
    expect(() => new ToolOutputArchive({ store: {} as never })).toThrow(/archive.store must be a LangGraph BaseStore/);
  });
});
