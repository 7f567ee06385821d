/**
 * A createSupervisor team whose researcher fetches 50 KB reports, wrapped with the archive on (SqliteStore in the
 * checkpoints' file): after every turn the stored thread stays under the limit, the agent reads an archived report
 * back through createArchiveReaderTool, and the archived text equals the original. Nothing is lost (auditThread).
 */
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createSupervisor } from "@langchain/langgraph-supervisor";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { auditThread, CompactingSupervisor, createArchiveReaderTool, TokenCounter } from "../../src/index.js";
import { validateHistory } from "../../src/internal.js";
import { editOf } from "../../src/messages/markers.js";
import { SqliteStore } from "../../src/archive/sqlite-store.js";
import { ScriptedChatModel, type ReplyPolicy } from "../support/fakes/scripted-chat-model.js";
import { ToolOutputArchive } from "../../src/archive/archive.js";

const dir = mkdtempSync(join(tmpdir(), "compaction-supervisor-archive-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const counter = new TokenCounter();
const report = (name: string) =>
  `${name.toUpperCase()} QUARTERLY REPORT\n${Array.from({ length: 820 }, (_, line) => `${name} ${line}: invoice inv_${10000 + line} settled ${(line * 7.25).toFixed(2)} EUR on 2026-0${(line % 9) + 1}-1${line % 10}`).join("\n")}\nEND OF ${name.toUpperCase()}`;

const fetchReport = tool(async ({ name }: { name: string }) => report(name), {
  name: "fetch_report",
  description: "Fetch a quarterly report by name.",
  schema: z.object({ name: z.string() }),
});

const lastHuman = (messages: BaseMessage[]) =>
  String([...messages].reverse().find((message) => HumanMessage.isInstance(message))?.content ?? "");

/** Fetches the report the user names, or reads an archived report back page by page and then answers. */
const researcherPolicy: ReplyPolicy = (messages) => {
  const request = lastHuman(messages);
  const last = messages.at(-1)!;
  const read = /read back the (\w+) report/.exec(request);
  if (read) {
    if (ToolMessage.isInstance(last) && last.name === "read_archived_output") {
      const page = /page (\d+) of (\d+)/.exec(String(last.content))!;
      const key = /key "([^"]+)"/.exec(String(last.content))![1]!;
      if (page[1] !== page[2])
        return { toolCalls: [{ name: "read_archived_output", args: { key, page: Number(page[1]) + 1 } }] };
      return { content: `I read all ${page[2]} pages of the archived ${read[1]} report.` };
    }
    const pointer = messages.find(
      (message) =>
        ToolMessage.isInstance(message) &&
        String(message.content).includes(`${read[1]!.toUpperCase()} QUARTERLY REPORT`) &&
        editOf(message),
    );
    const key = /key "([^"]+)"/.exec(String(pointer?.content ?? ""))?.[1] ?? "missing";
    return { toolCalls: [{ name: "read_archived_output", args: { key, page: 1 } }] };
  }
  if (ToolMessage.isInstance(last) && last.name === "fetch_report")
    return { content: `Fetched the report (${String(last.content).length} characters).` };
  return {
    toolCalls: [{ name: "fetch_report", args: { name: /fetch the (\w+) report/.exec(request)?.[1] ?? "unknown" } }],
  };
};

const supervisorPolicy: ReplyPolicy = (messages) =>
  HumanMessage.isInstance(messages.at(-1))
    ? { toolCalls: [{ name: "transfer_to_researcher", args: {} }] }
    : { content: "The researcher has handled it." };

describe("the archive in a supervisor run with 50 KB tool outputs", () => {
  it("keeps the stored thread under the limit, and the agent reads an archived output back exactly", async () => {
    const saver = SqliteSaver.fromConnString(join(dir, "team.sqlite"));
    const store = new SqliteStore(saver.db);
    const researcher = createReactAgent({
      llm: new ScriptedChatModel({ reply: researcherPolicy }),
      tools: [fetchReport, createArchiveReaderTool({ store, pageChars: 8_000 })],
      name: "researcher",
    });
    const team = createSupervisor({
      agents: [researcher],
      llm: new ScriptedChatModel({ reply: supervisorPolicy }),
      outputMode: "full_history",
    }).compile({ checkpointer: saver });
    const tokenLimit = 20_000;
    const supervisor = new CompactingSupervisor(team, {
      trigger: { tokens: tokenLimit },
      background: false,
      archive: new ToolOutputArchive({ store }),
    });
    const config = { configurable: { thread_id: "reports" }, recursionLimit: 100 };

    const names = ["north", "south", "east", "west"];
    expect(report("north").length).toBeGreaterThan(50_000);
    for (const name of names) {
      await supervisor.invoke({ messages: [new HumanMessage(`Please fetch the ${name} report.`)] }, config);
      const stored = (await supervisor.getState(config)).values.messages as BaseMessage[];
      expect(counter.countMessages(stored), `after fetching ${name}`).toBeLessThanOrEqual(tokenLimit);
      expect(validateHistory(stored)).toEqual([]);
    }
    // Without the archive the four outputs alone would be far over the limit.
    expect(counter.countText(names.map(report).join("\n"))).toBeGreaterThan(3 * tokenLimit);

    const result = await supervisor.invoke({ messages: [new HumanMessage("Now read back the north report.")] }, config);
    expect(
      result.messages.some((message: BaseMessage) =>
        /I read all \d+ pages of the archived north report/.test(String(message.content)),
      ),
    ).toBe(true);
    // The pages the agent received (the unedited tool results, found in the checkpoint history since the head now
    // holds pointers for all but the newest), in order, are the original text; so is the archived value.
    const byPage = new Map<number, string>();
    let pageCount = 0;
    for await (const snapshot of supervisor.getStateHistory(config)) {
      for (const message of snapshot.values.messages ?? []) {
        if (!ToolMessage.isInstance(message) || message.name !== "read_archived_output" || editOf(message)) continue;
        const header = /page (\d+) of (\d+)/.exec(String(message.content))!;
        pageCount = Number(header[2]);
        byPage.set(Number(header[1]), String(message.content).slice(String(message.content).indexOf("\n") + 1));
      }
    }
    expect(pageCount).toBeGreaterThan(5);
    expect(byPage.size).toBe(pageCount);
    const text = [...byPage.keys()]
      .sort((a, b) => a - b)
      .map((page) => byPage.get(page))
      .join("");
    expect(text).toBe(report("north"));
    const archived = await store.search(["archived-outputs"], { limit: 50 });
    expect(archived.map((item) => item.value.content)).toEqual(expect.arrayContaining(names.slice(0, 3).map(report)));

    // The head holds pointers, not the outputs, and every original is still accounted for.
    const head = (await supervisor.getState(config)).values.messages as BaseMessage[];
    expect(head.filter((message) => editOf(message)?.action === "archived").length).toBeGreaterThanOrEqual(3);
    const audit = await auditThread(saver, config);
    expect(audit.problems).toEqual([]);
    saver.db.close();
  });
});
