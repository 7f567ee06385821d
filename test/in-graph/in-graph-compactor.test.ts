/**
 * The in-graph step's bookkeeping: a finished summary waits for its thread's next model call, and the summaries
 * of threads that never call again are let go once more than a thousand wait (the oldest finished first).
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { InGraphCompactor } from "../../src/runtimes/in-graph/in-graph-compactor.js";
import { turnText } from "../support/in-graph-suite.js";
import { modelWithHardLimit } from "../support/window.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";

const history: BaseMessage[] = Array.from({ length: 24 }, (_, index) =>
  index % 2 === 0
    ? new HumanMessage({ id: `h-${index}`, content: turnText(index) })
    : new AIMessage({ id: `h-${index}`, content: `Noted: ${turnText(index)}` }),
);
const config = (thread: number) => ({ configurable: { thread_id: `t-${thread}` } });

describe("InGraphCompactor", () => {
  it("keeps a finished summary for its thread's next call, and lets the oldest go past a thousand threads", async () => {
    const applied: string[] = [];
    const compactor = new InGraphCompactor({
      trigger: { tokens: 400 },
      model: modelWithHardLimit(100_000),
      summarizer: new ExtractiveSummarizer(),
      env: {},
      onCompaction: (event) => void applied.push(event.threadId!),
    });
    for (let thread = 0; thread <= 1_001; thread++) {
      await compactor.after(history, 0, config(thread));
      await compactor.idle();
    }
    expect(await compactor.before(history, 0, config(1_001), { start: false })).toBeDefined();
    expect(await compactor.before(history, 0, config(0), { start: false })).toBeUndefined();
    expect(applied).toEqual(["t-1001"]);
  });
});
