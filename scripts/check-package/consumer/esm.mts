// An ES module consumer of the packed tarball: a graph wrapped and compacted, the stream loops of a plain graph,
// and the typed error for a backend that is not installed.
import { HumanMessage } from "@langchain/core/messages";
import { CompactingSupervisor, CompactionError } from "langgraph-compaction";
import { createOpenAISummarizer } from "langgraph-compaction/openai";
import { SqliteStore } from "langgraph-compaction/sqlite";
import { buildGraph, check } from "./shared.mjs";

const graph = buildGraph();
let compactions = 0;
const supervisor = new CompactingSupervisor(graph, {
  trigger: { tokens: 600 },
  model: "gpt-4o",
  onCompaction: (report) => void (report.status === "compacted" && compactions++),
});
const config = { configurable: { thread_id: "esm-consumer" } };
for (let turn = 0; turn < 6; turn++) await supervisor.invoke({ messages: [new HumanMessage(`turn ${turn}`)] }, config);

for await (const [message, meta] of await supervisor.stream(
  { messages: [new HumanMessage("stream")] },
  { ...config, streamMode: "messages" },
)) {
  check(
    typeof message.content === "string" && typeof meta === "object",
    "messages-mode chunks are [message, metadata]",
  );
}
for await (const chunk of await supervisor.stream(
  { messages: [new HumanMessage("values")] },
  { ...config, streamMode: "values" },
)) {
  check(Array.isArray(chunk.messages), "values-mode chunks carry the state");
}
await supervisor.flush();
check(compactions > 0, `the wrapper compacted (${compactions})`);

try {
  new SqliteStore("never-written.sqlite");
  check(false, "SqliteStore without better-sqlite3 throws");
} catch (error) {
  check(
    CompactionError.isInstance(error) &&
      error.code === "MISSING_DEPENDENCY" &&
      error.message.includes("npm install better-sqlite3"),
    `missing better-sqlite3 is MISSING_DEPENDENCY (${String(error)})`,
  );
}
// The OpenAI summarizer is built without @langchain/openai; its first summary names the package to install.
const openai = createOpenAISummarizer({ apiKey: "sk-not-used" });
const failed = await openai
  .summarize({ messages: [new HumanMessage("hello")], tokenBudget: 100 })
  .catch((error: unknown) => error);
check(
  CompactionError.isInstance(failed) &&
    failed.code === "MISSING_DEPENDENCY" &&
    failed.message.includes("npm install @langchain/openai"),
  `missing @langchain/openai is MISSING_DEPENDENCY (${String(failed)})`,
);
console.log(`esm consumer: ok (${compactions} compactions)`);
