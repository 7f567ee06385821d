/**
 * A thread holding a message LangChain does not take for one (a content that is an object) cannot be compacted as
 * it is: the wrapper says so once — naming the message and how to fix it — not on every turn, and compacts again
 * once the message is removed.
 */
import { AIMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { expect, it } from "vitest";
import { CompactionError } from "../../src/errors.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";

it("an object as a message's content: told once with the message's id and the fix; removing it lets the thread compact", async () => {
  let turn = 0;
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async () => ({
      messages: [
        new AIMessage(
          `answer ${++turn}: the invoice total is ${turn * 17} EUR, decided by Alice Moreau on 2026-03-14 for order ord_${turn}.`,
        ),
      ],
    }))
    .addEdge(START, "agent")
    .compile({ checkpointer: new MemorySaver() });
  const errors: unknown[] = [];
  let landed = 0;
  const supervisor = new CompactingSupervisor(graph, {
    trigger: { tokens: 600 },
    env: {},
    background: false,
    onCompaction: (report) => void (report.status === "compacted" && landed++),
    onCompactionError: (error) => void errors.push(error),
  });
  const config = { configurable: { thread_id: "odd" } };
  const odd = new HumanMessage({ id: "odd-content", content: "placeholder" });
  (odd as unknown as { content: unknown }).content = { form: "an object" };
  await supervisor.invoke({ messages: [odd] }, config);
  const ask = (index: number) => ({
    messages: [
      new HumanMessage(`question ${index}: what is the invoice total for order ord_${index}, decided by Alice Moreau?`),
    ],
  });
  for (let index = 0; index < 20; index++) await supervisor.invoke(ask(index), config);
  expect(landed).toBe(0);
  expect(errors).toHaveLength(1);
  expect(CompactionError.isInstance(errors[0]) && errors[0].code).toBe("INVALID_HISTORY");
  expect(String((errors[0] as Error).message)).toMatch(/id "odd-content".*RemoveMessage/);

  await graph.updateState(config, { messages: [new RemoveMessage({ id: "odd-content" })] });
  for (let index = 20; index < 24; index++) await supervisor.invoke(ask(index), config);
  expect(landed).toBeGreaterThan(0);
  expect(errors).toHaveLength(1);
});
