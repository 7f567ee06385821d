import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { planCompaction } from "../../src/engine/plan.js";
import { createSummaryMessage } from "../../src/messages/summary-message.js";
import { groupUnits } from "../../src/messages/units.js";
import { validateHistory } from "../../src/messages/validate.js";

const system = new SystemMessage({ id: "s", content: "You are a supervisor." });
const user = (id: string, text = `question ${id}`) => new HumanMessage({ id, content: text });
const answer = (id: string, name?: string) => new AIMessage({ id, name, content: `answer ${id}` });
function toolExchange(id: string, names: string[]): BaseMessage[] {
  const calls = names.map((name, index) => ({ id: `${id}-call-${index}`, name, args: { q: id } }));
  return [
    new AIMessage({ id, content: "", tool_calls: calls }),
    ...calls.map(
      (call) =>
        new ToolMessage({
          id: `${call.id}-result`,
          tool_call_id: call.id,
          name: call.name,
          content: `result of ${call.name}`,
        }),
    ),
  ];
}

describe("groupUnits", () => {
  it("keeps an AI message with all its parallel tool results, and handoff pairs, as one unit", () => {
    const history = [
      system,
      user("u1"),
      ...toolExchange("a1", ["search", "read", "run"]),
      ...toolExchange("h1", ["transfer_to_coder"]),
      answer("a2"),
    ];
    const units = groupUnits(history);
    expect(units.map((unit) => [unit.kind, unit.end - unit.start])).toEqual([
      ["system", 1],
      ["message", 1],
      ["tool-exchange", 4],
      ["handoff", 2],
      ["message", 1],
    ]);
  });
});

describe("planCompaction", () => {
  const history: BaseMessage[] = [
    system,
    user("u1"),
    ...toolExchange("a1", ["search", "read"]),
    answer("a2"),
    user("u2"),
    ...toolExchange("h1", ["transfer_to_researcher"]),
    ...toolExchange("r1", ["search"]),
    ...toolExchange("h2", ["transfer_back_to_supervisor"]),
    answer("a3", "supervisor"),
    user("u3"),
    answer("a4"),
  ];

  it("never splits a unit, never touches system messages or the latest user turn, at any ratio", () => {
    for (const ratio of [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95]) {
      const plan = planCompaction(history, { compactionRatio: ratio });
      expect(plan.system).toEqual([system]);
      expect(plan.keep.map((message) => message.id)).toContain("u3");
      expect(plan.summarize.map((message) => message.id)).not.toContain("u3");
      if (!plan.executable) continue;
      const cut = plan.summarize.length + 1;
      expect(groupUnits(history).some((unit) => unit.start === cut)).toBe(true);
      expect(validateHistory([system, new HumanMessage({ id: "x", content: "summary" }), ...plan.keep])).toEqual([]);
    }
  });

  it("summarizes about the requested share of the non-system messages", () => {
    const plan = planCompaction(history, { compactionRatio: 0.5 });
    expect(plan.executable).toBe(true);
    expect(Math.abs(plan.summarize.length - 0.5 * (history.length - 1))).toBeLessThanOrEqual(3);
    expect(plan.tokens.before).toBeGreaterThan(plan.tokens.kept);
    expect(plan.reason).toMatch(/summarize \d+ of \d+ messages/);
  });

  it("can keep the newest N tokens instead of a ratio", () => {
    const plan = planCompaction(history, { keepTokens: 60 });
    expect(plan.tokens.kept).toBeLessThanOrEqual(60);
    expect(planCompaction(history, { keepTokens: 200 }).keep.length).toBeGreaterThan(plan.keep.length);
    // The latest user turn is kept even when it alone exceeds the budget.
    expect(planCompaction(history, { keepTokens: 1 }).keep.at(0)!.id).toBe("u3");
  });

  it("folds a previous summary in instead of stacking a second one", () => {
    const previous = createSummaryMessage("earlier facts", {
      replacedCheckpointId: "c0",
      coveredMessages: 4,
      coveredTokens: 100,
      firstCoveredId: "z1",
      lastCoveredId: "z4",
      coveredIds: ["z1", "z2", "z3", "z4"],
      previousSummaryId: null,
      summarizer: "extractive",
      model: null,
    });
    const plan = planCompaction([system, previous, ...history.slice(1)], { compactionRatio: 0.5 });
    expect(plan.previousSummary).toBe(previous);
    expect(plan.summarize).not.toContain(previous);
    expect(plan.keep).not.toContain(previous);
  });

  it("says why there is nothing to do, and refuses a plan whose result a provider would reject", () => {
    expect(planCompaction([system, user("only")]).executable).toBe(false);
    expect(planCompaction([system, user("only")]).reason).toMatch(/nothing to summarize/);
    const broken = [
      system,
      user("u1"),
      answer("a1"),
      new ToolMessage({ id: "orphan", tool_call_id: "nope", content: "x" }),
      user("u2"),
      answer("a2"),
    ];
    const plan = planCompaction(broken, { compactionRatio: 0.2 });
    expect(plan.executable).toBe(false);
    expect(plan.reason).toMatch(/rejected by a provider/);
  });

  it("never mutates its input", () => {
    const copy = history.map((message) => JSON.stringify(message));
    planCompaction(history, { compactionRatio: 0.7 });
    expect(history.map((message) => JSON.stringify(message))).toEqual(copy);
  });

  it("rejects out-of-range options with the option and the value", () => {
    expect(() => planCompaction(history, { compactionRatio: 1.5 })).toThrow(/compactionRatio must be .* got 1\.5/);
    expect(() => planCompaction(history, { compactionRatio: 0 })).toThrow(/compactionRatio/);
    expect(() => planCompaction(history, { keepTokens: -3 })).toThrow(/keepTokens must be .* got -3/);
    expect(() => planCompaction([{ role: "user", content: "plain" }] as never)).toThrow(
      /messages must be LangChain messages/,
    );
  });
});

describe("validateHistory", () => {
  it("reports orphan results, unanswered calls, misplaced system messages and duplicate ids", () => {
    const problems = validateHistory([
      user("u1"),
      system,
      new ToolMessage({ id: "t", tool_call_id: "missing", content: "x" }),
      ...toolExchange("a1", ["search", "read"]).slice(0, 2),
      user("u1"),
    ]);
    expect(problems.map((problem) => problem.code).sort()).toEqual(
      ["DUPLICATE_ID", "ORPHAN_TOOL_RESULT", "SYSTEM_OUT_OF_PLACE", "UNANSWERED_TOOL_CALL"].sort(),
    );
    expect(validateHistory([system, user("u1"), ...toolExchange("a1", ["a", "b"]), answer("a2")])).toEqual([]);
  });
});
