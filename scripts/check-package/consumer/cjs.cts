// A CommonJS consumer of the packed tarball: require() of the package, its CommonJS types, a compacted thread. Its
// graph is built here rather than shared with the ESM consumer: each must compile against its own format's types.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver, MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { CompactingSupervisor, CompactionError, TokenCounter } from "langgraph-compaction";
import { SqliteStore } from "langgraph-compaction/sqlite";

async function main(): Promise<void> {
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({
      messages: [new AIMessage(`reply ${state.messages.length}: ${"the budget stays at 18,500 EUR. ".repeat(20)}`)],
    }))
    .addEdge("__start__", "agent")
    .compile({ checkpointer: new MemorySaver() });
  let compactions = 0;
  const supervisor = new CompactingSupervisor(graph, {
    trigger: { tokens: 600 },
    model: "gpt-4o",
    onCompaction: (report) => void (report.status === "compacted" && compactions++),
  });
  const config = { configurable: { thread_id: "cjs-consumer" } };
  for (let turn = 0; turn < 6; turn++)
    await supervisor.invoke({ messages: [new HumanMessage(`turn ${turn}`)] }, config);
  await supervisor.flush();
  if (compactions === 0) throw new Error("check failed: the wrapper compacted");
  if (new TokenCounter({ model: "gpt-4o" }).countText("hello world") !== 2)
    throw new Error("check failed: token count");
  try {
    new CompactingSupervisor(graph, { trigger: { tokens: -5 } });
    throw new Error("check failed: a bad option throws");
  } catch (error) {
    if (!CompactionError.isInstance(error) || error.code !== "INVALID_ARGUMENT") throw error;
  }
  try {
    new SqliteStore("never-written.sqlite");
    throw new Error("check failed: SqliteStore without better-sqlite3 throws");
  } catch (error) {
    if (!CompactionError.isInstance(error) || error.code !== "MISSING_DEPENDENCY") throw error;
  }
  console.log(`cjs consumer: ok (${compactions} compactions; loaded from ${require.resolve("langgraph-compaction")})`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
