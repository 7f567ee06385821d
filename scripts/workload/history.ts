/**
 * A deterministic generator of agent conversations as LangChain messages: a system prompt, user turns, a
 * supervisor handing off to sub-agents, tool calls (some parallel) with bulky results (JSON, logs, code), some CJK.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createRandom, type Random } from "./random.js";
import { cjk, code, jsonResult, prose } from "./text.js";

export interface HistoryOptions {
  seed?: number;
  /** Approximate number of messages (the last turn is completed, so a few more may be produced). */
  messages: number;
  /** Scale of tool outputs: 1 gives ~100 tokens per message on average. @default 1 */
  bulk?: number;
  /** Prefix of generated message ids, so several histories can coexist. @default "g" */
  idPrefix?: string;
}

const AGENTS = ["researcher", "coder"] as const;
const TOOLS = ["search_orders", "read_file", "run_tests", "query_metrics"] as const;

function toolOutput(random: Random, tool: string, bulk: number): string {
  const scale = Math.max(1, Math.round(bulk * random.int(1, 4)));
  switch (tool) {
    case "search_orders":
      return jsonResult(random, 2 * scale);
    case "read_file":
      return code(random, 4 * scale);
    case "run_tests":
      return Array.from(
        { length: 3 * scale },
        (_, index) =>
          `${random.pick(["PASS", "PASS", "FAIL"])} test/billing/${index}.test.ts (${random.int(3, 900)} ms)`,
      ).join("\n");
    default:
      return `${prose(random, scale)} ${random.chance(0.3) ? cjk(random, 20 * scale) : ""}`;
  }
}

export function generateHistory({ seed = 1, messages, bulk = 1, idPrefix = "g" }: HistoryOptions): BaseMessage[] {
  const random = createRandom(seed);
  let counter = 0;
  const id = () => `${idPrefix}${seed}-${counter++}`;
  const history: BaseMessage[] = [
    new SystemMessage({
      id: id(),
      content: "You are a supervisor coordinating a researcher and a coder for the billing team.",
    }),
  ];
  while (history.length < messages) {
    history.push(new HumanMessage({ id: id(), content: prose(random, random.int(1, 3)) }));
    const agent = random.pick(AGENTS);
    const handoffId = `call_${id()}`;
    if (random.chance(0.5)) {
      history.push(
        new AIMessage({
          id: id(),
          name: "supervisor",
          content: "",
          tool_calls: [{ id: handoffId, name: `transfer_to_${agent}`, args: {} }],
        }),
        new ToolMessage({
          id: id(),
          tool_call_id: handoffId,
          name: `transfer_to_${agent}`,
          content: `Successfully transferred to ${agent}`,
        }),
      );
    }
    const rounds = random.int(0, 2);
    for (let round = 0; round < rounds; round++) {
      const parallel = random.chance(0.3) ? random.int(2, 3) : 1;
      const calls = Array.from({ length: parallel }, () => ({
        id: `call_${id()}`,
        name: random.pick(TOOLS),
        args: { query: prose(random, 1).slice(0, 60) },
      }));
      history.push(new AIMessage({ id: id(), name: agent, content: "", tool_calls: calls }));
      for (const call of calls) {
        history.push(
          new ToolMessage({
            id: id(),
            tool_call_id: call.id,
            name: call.name,
            content: toolOutput(random, call.name, bulk),
          }),
        );
      }
    }
    history.push(new AIMessage({ id: id(), name: agent, content: prose(random, random.int(1, 4)) }));
  }
  return history;
}
