/**
 * Property-based: random valid histories, random ratios and token budgets. Plan + compact must keep every message
 * (verbatim or covered), produce a valid history, never mutate the input — in memory, and through a stored thread
 * audited with auditThread, with the summary as one running text or as a log of segments. A fixed seed in CI; FUZZ_SEED=<n> reproduces a printed failure.
 */
import { BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { auditThread, ExtractiveSummarizer, getSummaryProvenance, TokenCounter } from "../../src/index.js";
import { validateHistory } from "../../src/internal.js";
import { buildHistory, history, historyShape, snapshot, text } from "../support/arbitrary-history.js";
import { FUZZ_SEED, recordFigures, size } from "../support/reliability.js";
import { managerWithCounter } from "../support/manager-with-counter.js";

const counter = new TokenCounter();
const ratio = fc.double({ min: 0.01, max: 0.99, noNaN: true });
const keepTokens = fc.option(fc.integer({ min: 0, max: 4000 }), { nil: undefined });
const PURE_RUNS = size("FUZZ_RUNS", 300, 20000);
const STORED_RUNS = size("FUZZ_STORED_RUNS", 50, 2000);

function manager(checkpointer = new MemorySaver(), summaryLog: "rewrite" | "append" = "rewrite") {
  return managerWithCounter(checkpointer, counter, { summarizer: new ExtractiveSummarizer({ counter }), summaryLog });
}

function leadingSystem(messages: readonly BaseMessage[]): BaseMessage[] {
  const end = messages.findIndex((message) => message.getType() !== "system");
  return messages.slice(0, end === -1 ? messages.length : end);
}

describe("fuzzed histories", () => {
  it(
    `plan + compact keep every message and produce a valid history (${PURE_RUNS} cases, seed ${FUZZ_SEED})`,
    async () => {
      const compactor = manager();
      let compacted = 0;
      let folded = 0;
      await fc.assert(
        fc.asyncProperty(
          history,
          ratio,
          keepTokens,
          fc.array(historyShape, { maxLength: 1 }),
          async (messages, compactionRatio, keep, more) => {
            expect(validateHistory(messages)).toEqual([]);
            const before = snapshot(messages);
            const frozen = [...messages];
            const plan = compactor.planCompaction(messages, { compactionRatio, keepTokens: keep });
            if (!plan.executable) {
              expect(plan.reason).toMatch(/\w/);
              await expect(
                compactor.compactMessages(messages, { compactionRatio, keepTokens: keep }),
              ).rejects.toMatchObject({ code: "INVALID_HISTORY" });
              return;
            }
            let result = await compactor.compactMessages(messages, { compactionRatio, keepTokens: keep });
            compacted++;
            checkCompaction(messages, result.messages, result.summary);
            // A second round folds the first summary into a running one.
            if (more.length > 0) {
              const grown = [...result.messages, ...buildHistory({ ...more[0]!, systems: [] }, "n")];
              if (compactor.planCompaction(grown, { compactionRatio }).executable) {
                const again = await compactor.compactMessages(grown, { compactionRatio });
                checkCompaction(grown, again.messages, again.summary);
                if (again.plan.previousSummary) {
                  folded++;
                  expect(getSummaryProvenance(again.summary)!.previousSummaryId).toBe(result.summary.id);
                }
                result = again;
              }
            }
            // Inputs never mutated: same array contents, same serialized messages.
            expect(messages).toEqual(frozen);
            expect(snapshot(messages)).toBe(before);
          },
        ),
        { seed: FUZZ_SEED, numRuns: PURE_RUNS },
      );
      recordFigures("fuzz", {
        pureCases: PURE_RUNS,
        pureCompacted: compacted,
        runningSummaries: folded,
        seed: FUZZ_SEED,
      });
      expect(compacted).toBeGreaterThan(PURE_RUNS / 4);
    },
    60_000 + PURE_RUNS * 10,
  );

  it(
    `a stored thread compacted at random keeps every message (auditThread) and its other channels (${STORED_RUNS} cases)`,
    async () => {
      const State = Annotation.Root({
        ...MessagesAnnotation.spec,
        todos: Annotation<string[]>({ reducer: (_, next) => next, default: () => [] }),
      });
      let audited = 0;
      let lost = 0;
      let logs = 0;
      let switches = 0;
      await fc.assert(
        fc.asyncProperty(
          historyShape,
          // Each round compacts in a form drawn for it: a thread switches between the running summary and the log.
          fc.array(fc.tuple(ratio, historyShape, fc.constantFrom("rewrite" as const, "append" as const)), {
            minLength: 1,
            maxLength: 3,
          }),
          text,
          async (shape, rounds, todo) => {
            const saver = new MemorySaver();
            const graph = new StateGraph(State)
              .addNode("agent", async () => ({}))
              .addEdge(START, "agent")
              .addEdge("agent", END)
              .compile({ checkpointer: saver });
            const config = { configurable: { thread_id: "fuzz" } };
            await graph.updateState(config, { messages: buildHistory(shape, "s"), todos: [todo] }, "agent");
            const other = { configurable: { thread_id: "other" } };
            await graph.updateState(
              other,
              { messages: [new HumanMessage({ id: "other-1", content: "untouched" })] },
              "agent",
            );
            const otherHead = await saver.getTuple(other);
            const compactors = { rewrite: manager(saver, "rewrite"), append: manager(saver, "append") };
            let form: "rewrite" | "append" | undefined;
            for (const [[compactionRatio, next, summaryLog], round] of rounds.map(
              (value, index) => [value, index] as const,
            )) {
              const before = await graph.getState(config);
              const report = await compactors[summaryLog].compactThread(config, { compactionRatio });
              const after = await graph.getState(config);
              if (report.status === "compacted") {
                expect(leadingSystem(after.values.messages)).toEqual(leadingSystem(before.values.messages));
                if (summaryLog === "append") logs++;
                if (form !== undefined && form !== summaryLog) switches++;
                form = summaryLog;
              } else {
                expect(after.config.configurable?.checkpoint_id).toBe(before.config.configurable?.checkpoint_id);
              }
              expect(after.values.todos).toEqual([todo]);
              const audit = await auditThread(saver, config);
              audited++;
              lost += audit.problems.filter((problem) => problem.code === "LOST_MESSAGE").length;
              expect(audit.problems).toEqual([]);
              await graph.updateState(
                config,
                { messages: buildHistory({ ...next, systems: [] }, `r${round}`) },
                "agent",
              );
            }
            expect(await saver.getTuple(other)).toEqual(otherHead);
          },
        ),
        { seed: FUZZ_SEED, numRuns: STORED_RUNS },
      );
      recordFigures("fuzz", {
        storedCases: STORED_RUNS,
        storedAudits: audited,
        logCompactions: logs,
        formSwitches: switches,
        messagesLost: lost,
      });
      expect(logs).toBeGreaterThan(0);
      expect(switches).toBeGreaterThan(0);
    },
    60_000 + STORED_RUNS * 60,
  );
});

/** The invariants of one compaction of `input` into `output`. */
function checkCompaction(input: readonly BaseMessage[], output: readonly BaseMessage[], summary: BaseMessage): void {
  expect(validateHistory(output)).toEqual([]);
  const system = leadingSystem(input);
  expect(output.slice(0, system.length)).toEqual(system);
  expect(output[system.length]).toBe(summary);
  const kept = output.slice(system.length + 1);
  // The kept part is the input's tail, the same objects.
  const tail = input.slice(input.length - kept.length);
  kept.forEach((message, index) => expect(message).toBe(tail[index]));
  // Everything between the system messages and the kept tail is covered by the summary.
  const provenance = getSummaryProvenance(summary)!;
  const previous =
    input[system.length] && getSummaryProvenance(input[system.length]) ? input[system.length]! : undefined;
  const summarized = input.slice(system.length + (previous ? 1 : 0), input.length - kept.length);
  expect(summarized.length).toBeGreaterThan(0);
  expect(provenance.coveredIds).toEqual(summarized.map((message) => message.id).filter((id) => typeof id === "string"));
  expect(provenance.previousSummaryId).toBe(previous?.id ?? null);
  expect(provenance.coveredMessages).toBe(
    summarized.length + (previous ? getSummaryProvenance(previous)!.coveredMessages : 0),
  );
  // No duplicates: every id once.
  const ids = output.map((message) => message.id).filter((id) => id !== undefined);
  expect(new Set(ids).size).toBe(ids.length);
  expect(output.every((message) => BaseMessage.isInstance(message))).toBe(true);
}
