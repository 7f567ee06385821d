/**
 * What a turn costs with the library and without it: CPU of the process per turn against the bare graph's turn on a
 * thread of the same length, at 100 / 1,000 / 5,000 messages (SQLite file), arms interleaved in one run, ratios as
 * min / median over the turns. No arm compacts (the limits are out of reach): this is the price of carrying the
 * library. The columns:
 * - the wrapper, warm (the thread seen before), against createReactAgent;
 * - the wrapper with `keepCheckpoints: 3`: the turn and its prune, until `flush()` returns;
 * - compactionMiddleware against createAgent without middleware, and an empty middleware beside it (langchain's
 *   `agent.invoke` reads the thread's state once more before every run of an agent with any middleware), and the
 *   same agent run through `agent.graph` (what the Agent Server runs: no such read), with the checkpoints per turn;
 * - the first turn of a thread in a new wrapper (every thread after a restart); and beside it, the same with a limit
 *   twice the thread's count, which the thread's stored size cannot prove it under (the head is read and counted).
 * Run: npm run bench:turns
 */
import "../../src/store/all-backends.js";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createAgent, createMiddleware } from "langchain";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { ScriptedChatModel } from "../../test/support/fakes/scripted-chat-model.js";
import { modelWithHardLimit } from "../../test/support/window.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { generateHistory } from "../workload/history.js";
import { seedHead } from "../workload/seed-head.js";
import { eventLoopDuring, median, printTable } from "./table.js";
import { readmeBlock } from "./readme-block.js";

const SIZES = [100, 1_000, 5_000];
/** Turns per arm: more where a turn is short, so the medians hold still (BENCH_TURNS sets them all). */
const turnsAt = (size: number) => Number(process.env.BENCH_TURNS ?? (size <= 100 ? 31 : size <= 1_000 ? 11 : 7));
const OUT_OF_REACH = {
  trigger: { tokens: 1_000_000_000 },
  model: modelWithHardLimit(2_000_000_000),
  summarizer: new ExtractiveSummarizer(),
};

interface Arm {
  name: string;
  /** The bare arm this one is compared with. */
  against: string;
  /** Made ready before each turn, untimed. */
  prepare?: () => void;
  /** One turn on `threadId`, everything it starts included. */
  turn(threadId: string, index: number): Promise<void>;
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function checkpointsOf(saver: BaseCheckpointSaver, threadId: string): Promise<number> {
  let count = 0;
  for await (const _ of saver.list({ configurable: { thread_id: threadId } })) count++;
  return count;
}

export async function benchTurnCost(): Promise<void> {
  const rows: Array<Record<string, string>> = [];
  const middlewareRows: Array<Record<string, string>> = [];
  for (const size of SIZES) {
    const dir = mkdtempSync(join(tmpdir(), "compaction-turns-"));
    const saver = SqliteSaver.fromConnString(join(dir, "turns.sqlite"));
    try {
      const history: BaseMessage[] = generateHistory({ seed: 31, messages: size });
      const model = new ScriptedChatModel({
        reply: () => ({ content: "The invoice total is 4,200 EUR, approved by Alice Moreau on 2026-03-14." }),
      });
      const ask = (index: number) => ({ messages: [new HumanMessage(`turn ${index}: what is the invoice total?`)] });
      const config = (threadId: string) => ({ configurable: { thread_id: threadId } });
      const react = createReactAgent({ llm: model, tools: [], checkpointer: saver });
      const warm = new CompactingSupervisor(react, { ...OUT_OF_REACH });
      const pruning = new CompactingSupervisor(react, { ...OUT_OF_REACH, keepCheckpoints: 3 });
      const agent = createAgent({ model, tools: [], checkpointer: saver });
      const empty = createAgent({
        model,
        tools: [],
        checkpointer: saver,
        middleware: [createMiddleware({ name: "Empty" })],
      });
      const compacting = createAgent({
        model,
        tools: [],
        checkpointer: saver,
        middleware: [compactionMiddleware({ ...OUT_OF_REACH })],
      });
      let fresh: CompactingSupervisor<typeof react> | undefined;
      let fresh2: CompactingSupervisor<typeof react> | undefined;
      const tokens = new TokenCounter({ model: "gpt-4o" }).countMessages(history);
      const arms: Arm[] = [
        {
          name: "react",
          against: "react",
          turn: async (thread, index) => void (await react.invoke(ask(index), config(thread))),
        },
        {
          name: "wrapper, warm",
          against: "react",
          turn: async (thread, index) => void (await warm.invoke(ask(index), config(thread)), await warm.flush()),
        },
        {
          name: "keepCheckpoints: 3",
          against: "react",
          turn: async (thread, index) => void (await pruning.invoke(ask(index), config(thread)), await pruning.flush()),
        },
        {
          name: "first turn of a new wrapper",
          against: "react",
          // The wrapper is made before the turn, untimed (one per process, for all its threads).
          prepare: () => void (fresh = new CompactingSupervisor(react, { ...OUT_OF_REACH })),
          turn: async (thread, index) => {
            await fresh!.invoke(ask(index), config(thread));
            await fresh!.flush();
          },
        },
        {
          name: "first turn, size not proof",
          against: "react",
          // A limit twice the thread's count: far from it, but the stored size (bytes) cannot prove it, so the head is
          // read and counted before the turn (runtimes/wrapper/unread-head.ts).
          prepare: () =>
            void (fresh2 = new CompactingSupervisor(react, {
              trigger: { tokens: 2 * tokens },
              model: modelWithHardLimit(3 * tokens),
              summarizer: new ExtractiveSummarizer(),
            })),
          turn: async (thread, index) => {
            await fresh2!.invoke(ask(index), config(thread));
            await fresh2!.flush();
          },
        },
        {
          name: "createAgent",
          against: "createAgent",
          turn: async (thread, index) => void (await agent.invoke(ask(index), config(thread))),
        },
        {
          name: "empty middleware",
          against: "createAgent",
          turn: async (thread, index) => void (await empty.invoke(ask(index), config(thread))),
        },
        {
          name: "compactionMiddleware",
          against: "createAgent",
          turn: async (thread, index) => void (await compacting.invoke(ask(index), config(thread))),
        },
        // The compiled graph inside the agent, which the Agent Server runs (it unwraps createAgent's `.graph`).
        {
          name: "compactionMiddleware, agent.graph",
          against: "createAgent",
          turn: async (thread, index) => void (await compacting.graph.invoke(ask(index), config(thread))),
        },
      ];
      for (const arm of arms) await seedHead(saver, `${arm.name}-${size}`, history);
      // A warm-up turn each (the wrapper's warm arms see their thread once; the first-turn arm never does).
      for (const arm of arms) {
        arm.prepare?.();
        await arm.turn(`${arm.name}-${size}`, -1);
      }
      const cpu = new Map<string, number[]>();
      const checkpointsBefore = new Map<string, number>();
      for (const arm of arms) checkpointsBefore.set(arm.name, await checkpointsOf(saver, `${arm.name}-${size}`));
      const turns = turnsAt(size);
      for (let index = 0; index < turns; index++) {
        // Each round in another order, so collections and caches fall on every arm alike.
        const order = index % 2 === 0 ? arms : [...arms].reverse();
        for (const arm of order) {
          arm.prepare?.();
          const started = cpuMs();
          await arm.turn(`${arm.name}-${size}`, index);
          (cpu.get(arm.name) ?? cpu.set(arm.name, []).get(arm.name)!).push(cpuMs() - started);
        }
      }
      // Ratios turn by turn against the bare arm's turn of the same round.
      const ratio = (name: string, against: string) => {
        const ratios = cpu.get(name)!.map((ms, index) => ms / cpu.get(against)![index]!);
        return `${Math.min(...ratios).toFixed(2)} / ${median(ratios).toFixed(2)}`;
      };
      rows.push({
        messages: size.toLocaleString("en-US"),
        turns: String(turns),
        "bare turn, ms CPU": median(cpu.get("react")!).toFixed(1),
        "wrapper, warm": ratio("wrapper, warm", "react"),
        "keepCheckpoints: 3 (turn + prune)": ratio("keepCheckpoints: 3", "react"),
        compactionMiddleware: ratio("compactionMiddleware", "createAgent"),
        "first turn of a new wrapper": ratio("first turn of a new wrapper", "react"),
        "first turn, limit 2x the thread (size proves nothing)": ratio("first turn, size not proof", "react"),
      });
      const perTurn = async (name: string) =>
        ((await checkpointsOf(saver, `${name}-${size}`)) - checkpointsBefore.get(name)!) / turns;
      middlewareRows.push({
        messages: size.toLocaleString("en-US"),
        "createAgent, ms CPU": median(cpu.get("createAgent")!).toFixed(1),
        "empty middleware": ratio("empty middleware", "createAgent"),
        compactionMiddleware: ratio("compactionMiddleware", "createAgent"),
        "against the empty middleware": ratio("compactionMiddleware", "empty middleware"),
        "run as the Agent Server runs it (agent.graph)": ratio("compactionMiddleware, agent.graph", "createAgent"),
        "checkpoints per turn: createAgent / with compactionMiddleware": `${await perTurn("createAgent")} / ${await perTurn("compactionMiddleware")}`,
      });
    } finally {
      saver.db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  printTable(
    `A turn's CPU against the bare graph's (min / median of the interleaved turns, process CPU; targets: keepCheckpoints <= 1.3, compactionMiddleware <= 1.15, first turn <= 1.3)`,
    rows,
  );
  printTable(
    "compactionMiddleware against createAgent without middleware and with an empty one (langchain's agent.invoke reads the thread once more before each run of an agent with any middleware; the Agent Server runs agent.graph, which does not)",
    middlewareRows,
  );
  await benchPruneStall();
}

/**
 * The event loop after a turn returned, on a 10,000-message thread with `keepCheckpoints: 3`: the largest delay
 * while the turn's prune runs (until `flush()`), against the largest delay during the turn itself (LangGraph's own
 * read and writes of the thread). Target: <= 50 ms after the turn.
 */
export async function benchPruneStall(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "compaction-turns-stall-"));
  const saver = SqliteSaver.fromConnString(join(dir, "stall.sqlite"));
  try {
    const model = new ScriptedChatModel({
      reply: () => ({ content: "The invoice total is 4,200 EUR, approved by Alice Moreau on 2026-03-14." }),
    });
    const react = createReactAgent({ llm: model, tools: [], checkpointer: saver });
    const wrapper = new CompactingSupervisor(react, { ...OUT_OF_REACH, keepCheckpoints: 3 });
    await seedHead(saver, "stall", generateHistory({ seed: 37, messages: 10_000 }));
    const rows: Array<Record<string, string>> = [];
    for (let turn = 0; turn < 4; turn++) {
      const during = await eventLoopDuring(
        async () =>
          void (await wrapper.invoke(
            { messages: [new HumanMessage(`turn ${turn}: what is the invoice total?`)] },
            { configurable: { thread_id: "stall" } },
          )),
      );
      const after = await eventLoopDuring(() => wrapper.flush());
      let checkpoints = 0;
      for await (const _ of saver.list({ configurable: { thread_id: "stall", checkpoint_ns: "" } })) checkpoints++;
      rows.push({
        turn: String(turn),
        "turn, ms": during.ms.toFixed(0),
        "largest delay in the turn, ms": Math.max(during.maxMs, during.gapMs).toFixed(1),
        "prune after it, ms": after.ms.toFixed(0),
        "largest delay after the turn, ms": Math.max(after.maxMs, after.gapMs).toFixed(1),
        "checkpoints kept": String(checkpoints),
      });
    }
    printTable(
      "The event loop after a turn on a 10,000-message SQLite thread with keepCheckpoints: 3 (target after the turn: <= 50 ms)",
      rows,
    );
  } finally {
    saver.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await readmeBlock("turns", () => benchTurnCost());
}
