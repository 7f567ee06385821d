/**
 * `npm run bench:storage`: what a thread costs the store. The peers conversations (50 to 2,000 messages: handoffs,
 * bulky and parallel tool calls), and the retention benchmark's recorded conversations where this machine has them
 * (the middleware contender plays the generated ones only), played through real graphs on a SQLite file each (and on
 * Postgres for the delta store and this library), at a budget of 25% of the
 * conversation's tokens, per contender: no compaction; no compaction with `MessagesDeltaValue` (LangGraph's own
 * delta storage); this library without pruning; this library with `keepCheckpoints: 3`; `summarizationMiddleware`.
 * Measured: the store's live bytes (SQLite pages in use after a WAL checkpoint, the recall index/transcript
 * included), bytes per message, and the ratio to the messages' own serialized bytes (each message stored once with
 * LangGraph's serde: the floor). Every size is printed, so linear and quadratic growth show side by side.
 */
import "../../src/store/all-backends.js";
import { HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesDeltaValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { randomUUID } from "node:crypto";
import { startPostgres } from "../../test/support/postgres-server.js";
import { modelWithHardLimit } from "../../test/support/window.js";
import { createAgent } from "langchain";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { serializeMessage } from "../../src/store/recall-index/message-serde.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { generateConversation } from "../workload/conversation.js";
import { conversationMessages } from "../workload/conversation-messages.js";
import { CONTENDERS, SYSTEM_PROMPT } from "./peers/contenders.js";
import { createPlayer, type Player } from "./peers/player.js";
import { BUDGET_SHARE, DEFAULT_PEER_SIZES } from "./peers.js";
import { printNote, printTable } from "./table.js";
import { existsSync } from "node:fs";
import { loadDialogues, type Dialogue } from "./retention/dataset.js";
import { createPlayer as createDialoguePlayer, groupTurns, userMessage } from "./retention/player.js";
import { budgetOf, DEFAULT_DATA } from "./retention.js";
import { readmeBlock } from "./readme-block.js";

type Run = (input: string | BaseMessage[]) => Promise<BaseMessage[]>;
interface StorageContender {
  name: string;
  build(player: Player, saver: BaseCheckpointSaver, budget: number): { run: Run; done(): Promise<void> };
}

const config = { configurable: { thread_id: "storage" }, recursionLimit: 200 };
const input = (given: string | BaseMessage[]) => ({
  messages: typeof given === "string" ? [new HumanMessage(given)] : given,
});

function library(name: string, keepCheckpoints?: number): StorageContender {
  return {
    name,
    build(player, saver, budget) {
      const agent = createAgent({
        model: player.model,
        tools: player.tools,
        checkpointer: saver,
        systemPrompt: SYSTEM_PROMPT,
      });
      const supervisor = new CompactingSupervisor(agent, {
        trigger: { tokens: budget },
        // The window at risk is the budget: a turn whose input would take the thread past it compacts first.
        model: modelWithHardLimit(budget),
        background: false,
        summarizer: new ExtractiveSummarizer(),
        env: {},
        ...(keepCheckpoints === undefined ? {} : { keepCheckpoints }),
      });
      return {
        run: async (text) => (await supervisor.invoke(input(text), config)).messages as BaseMessage[],
        done: () => supervisor.flush(),
      };
    },
  };
}

const STORAGE_CONTENDERS: StorageContender[] = [
  {
    name: "no compaction",
    build(player, saver) {
      const agent = createAgent({
        model: player.model,
        tools: player.tools,
        checkpointer: saver,
        systemPrompt: SYSTEM_PROMPT,
      });
      return {
        run: async (text) => (await agent.invoke(input(text), config)).messages as BaseMessage[],
        done: async () => undefined,
      };
    },
  },
  {
    name: "no compaction, MessagesDeltaValue",
    build(player, saver) {
      const model = player.model.bindTools(player.tools);
      const graph = new StateGraph(new StateSchema({ messages: MessagesDeltaValue }))
        .addNode("agent", async (state) => ({
          messages: [await model.invoke([new SystemMessage(SYSTEM_PROMPT), ...(state.messages as BaseMessage[])])],
        }))
        .addNode("tools", new ToolNode(player.tools))
        .addEdge(START, "agent")
        .addConditionalEdges("agent", toolsCondition, ["tools", "__end__"])
        .addEdge("tools", "agent")
        .compile({ checkpointer: saver });
      return {
        run: async (text) => (await graph.invoke(input(text), config)).messages as BaseMessage[],
        done: async () => undefined,
      };
    },
  },
  library("this library, keep every checkpoint"),
  library("this library, keepCheckpoints: 3", 3),
  {
    name: "summarizationMiddleware",
    build(player, saver, budget) {
      const middleware = CONTENDERS.find((contender) => contender.name.startsWith("summarizationMiddleware"))!;
      const running = middleware.build(player, saver, budget, new TokenCounter());
      return {
        run: async (given) => {
          if (typeof given !== "string")
            throw new Error("the middleware contender plays the generated conversations only");
          await running.invoke(given, "storage");
          return [];
        },
        done: async () => undefined,
      };
    },
  },
];

/** Bytes of the pages in use (the file minus its free pages), after the WAL is folded in, and per table or index. */
function liveBytes(saver: SqliteSaver): { bytes: number; parts: Record<string, number> } {
  saver.db.pragma("wal_checkpoint(TRUNCATE)");
  const pages =
    Number(saver.db.pragma("page_count", { simple: true })) -
    Number(saver.db.pragma("freelist_count", { simple: true }));
  const rows = saver.db.prepare(`SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name`).all() as Array<{
    name: string;
    bytes: number;
  }>;
  return {
    bytes: pages * Number(saver.db.pragma("page_size", { simple: true })),
    parts: Object.fromEntries(rows.map((row) => [row.name, Number(row.bytes)])),
  };
}

interface StorageResult {
  /** Messages of a generated conversation, or a recorded conversation's id. */
  size: number | string;
  backend: "SQLite" | "Postgres";
  contender: string;
  bytes: number;
  messages: number;
  floor: number;
  /** Bytes per table (with its TOAST on Postgres) or index. */
  parts: Record<string, number>;
}

/** The contenders also measured on Postgres (the uncompacted and middleware stores are SQLite only: gigabytes). */
const ON_POSTGRES = new Set([
  "no compaction, MessagesDeltaValue",
  "this library, keep every checkpoint",
  "this library, keepCheckpoints: 3",
]);

/** Bytes of the schema's tables with their indexes and TOAST, after VACUUM FULL gives deleted rows' space back. */
async function postgresBytes(
  saver: PostgresSaver,
  schema: string,
): Promise<{ bytes: number; parts: Record<string, number> }> {
  const pool = (
    saver as unknown as {
      pool: { query(sql: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }> };
    }
  ).pool;
  const tables = await pool.query(`SELECT tablename FROM pg_tables WHERE schemaname = $1`, [schema]);
  let bytes = 0;
  const parts: Record<string, number> = {};
  for (const { tablename } of tables.rows) {
    const name = `"${schema}"."${String(tablename)}"`;
    await pool.query(`VACUUM FULL ${name}`);
    const sizes = (
      await pool.query(
        `SELECT pg_total_relation_size($1::regclass) AS total, pg_indexes_size($1::regclass) AS indexes`,
        [name],
      )
    ).rows[0]!;
    bytes += Number(sizes.total);
    parts[String(tablename)] = Number(sizes.total) - Number(sizes.indexes);
    parts[`${String(tablename)} (indexes)`] = Number(sizes.indexes);
  }
  return { bytes, parts };
}

/** What a contender is fed: the turns' inputs in order, and the model's scripted player (generated or recorded). */
interface Script {
  label: string;
  messages: number;
  player: Player;
  turns: Array<{ begin(): void; input: string | BaseMessage[] }>;
}

async function play(
  contender: StorageContender,
  script: Script,
  budget: number,
  dir: string,
  postgresUrl?: string,
): Promise<{ bytes: number; parts: Record<string, number>; seen: Map<string, BaseMessage> }> {
  const path = join(dir, `${contender.name.replace(/\W+/g, "-")}-${script.label.replace(/\W+/g, "-")}.sqlite`);
  const schema = `storage_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const saver = postgresUrl ? PostgresSaver.fromConnString(postgresUrl, { schema }) : SqliteSaver.fromConnString(path);
  if (saver instanceof PostgresSaver) await saver.setup();
  const running = contender.build(script.player, saver, budget);
  const seen = new Map<string, BaseMessage>();
  for (const turn of script.turns) {
    turn.begin();
    for (const message of await running.run(turn.input))
      if (message.id && !isSummaryMessage(message) && !seen.has(message.id)) seen.set(message.id, message);
  }
  await running.done();
  if (saver instanceof PostgresSaver) {
    const { bytes, parts } = await postgresBytes(saver, schema);
    await (saver as unknown as { pool: { query(sql: string): Promise<unknown> } }).pool.query(
      `DROP SCHEMA "${schema}" CASCADE`,
    );
    await saver.end();
    return { bytes, parts, seen };
  }
  const { bytes, parts } = liveBytes(saver);
  saver.db.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
  return { bytes, parts, seen };
}

/** A generated peers conversation (tool calls, handoffs). */
function generated(size: number, counter: TokenCounter): { script: () => Script; budget: number } {
  const conversation = generateConversation({ seed: 11, messages: size });
  const total = counter.countMessages([new SystemMessage(SYSTEM_PROMPT), ...conversationMessages(conversation)]);
  return {
    budget: Math.max(400, Math.floor(total * BUDGET_SHARE)),
    script: () => {
      const player = createPlayer(conversation, counter);
      return {
        label: String(size),
        messages: size,
        player,
        turns: conversation.turns.map((turn, index) => ({ begin: () => player.begin(index), input: turn.user })),
      };
    },
  };
}

/** A recorded conversation of the retention benchmark, replayed turn by turn (no tools). */
function recorded(dialogue: Dialogue, counter: TokenCounter): { script: () => Script; budget: number } {
  const groups = groupTurns(dialogue);
  return {
    budget: budgetOf(dialogue, BUDGET_SHARE, counter),
    script: () => {
      const replay = createDialoguePlayer(groups, counter);
      const player = { model: replay.model, tools: [] } as unknown as Player;
      return {
        label: dialogue.id,
        messages: dialogue.turns.length,
        player,
        turns: groups
          .filter((group) => group.reply)
          .map((group) => ({ begin: () => replay.begin(groups.indexOf(group)), input: group.inputs.map(userMessage) })),
      };
    },
  };
}

export async function benchStorage(sizes = DEFAULT_PEER_SIZES): Promise<StorageResult[]> {
  const counter = new TokenCounter();
  const dir = mkdtempSync(join(tmpdir(), "compaction-storage-"));
  const results: StorageResult[] = [];
  const postgres = await startPostgres();
  const workloads: Array<{ size: number | string; load: { script: () => Script; budget: number } }> = sizes.map(
    (size) => ({ size, load: generated(size, counter) }),
  );
  // The retention benchmark's recorded conversations, where this machine has them (docs/benchmarks.md).
  if (existsSync(DEFAULT_DATA))
    for (const dialogue of loadDialogues(DEFAULT_DATA))
      workloads.push({ size: dialogue.id, load: recorded(dialogue, counter) });
  try {
    for (const { size, load } of workloads) {
      let floor = 0;
      let messages = 0;
      for (const backend of ["SQLite", "Postgres"] as const) {
        for (const contender of STORAGE_CONTENDERS) {
          if (backend === "Postgres" && !ON_POSTGRES.has(contender.name)) continue;
          if (typeof size === "string" && contender.name === "summarizationMiddleware") continue;
          if (ONLY && !ONLY.some((name) => contender.name.includes(name))) continue;
          const { bytes, parts, seen } = await play(
            contender,
            load.script(),
            load.budget,
            dir,
            backend === "Postgres" ? postgres.url : undefined,
          );
          // The floor: every message of the run (the uncompacted one's, when it runs), stored once with LangGraph's serde.
          if (contender.name === "no compaction" || floor === 0) {
            messages = seen.size;
            floor = [...seen.values()].reduce((sum, message) => sum + Buffer.byteLength(serializeMessage(message)), 0);
          }
          results.push({ size, backend, contender: contender.name, bytes, messages, floor, parts });
          process.stderr.write(`  ${size}, ${backend}, ${contender.name}: ${(bytes / 1e6).toFixed(2)} MB\n`);
        }
      }
    }
  } finally {
    // A pool of the graphs' savers may still hold an idle connection the server's shutdown ends (57P01): the
    // measurements are taken, so that error is not the bench's.
    const shutdown = (error: unknown) => {
      if ((error as { code?: string }).code !== "57P01") throw error;
    };
    process.on("uncaughtException", shutdown);
    await postgres.stop();
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.off("uncaughtException", shutdown);
    rmSync(dir, { recursive: true, force: true });
  }
  const perMessage = (result: StorageResult) => result.bytes / result.messages;
  const at = (contender: string, size: number | string, backend: StorageResult["backend"] = "SQLite") =>
    results.find((result) => result.contender === contender && result.size === size && result.backend === backend);
  printTable(
    `Storage: the peers conversations, budget ${BUDGET_SHARE * 100}% of each conversation's tokens; live bytes (SQLite: pages in use; Postgres: pg_total_relation_size of the schema's tables after VACUUM FULL), the transcript and its search index included (npm run bench:storage)`,
    results.map((result) => ({
      conversation:
        typeof result.size === "number" ? `${result.size} messages` : `${result.size} (${result.messages} messages)`,
      store: result.backend,
      contender: result.contender,
      "live MB": (result.bytes / 1e6).toFixed(2),
      "bytes/message": Math.round(perMessage(result)),
      "× own bytes": (result.bytes / result.floor).toFixed(2),
      "× delta": at("no compaction, MessagesDeltaValue", result.size, result.backend)
        ? (result.bytes / at("no compaction, MessagesDeltaValue", result.size, result.backend)!.bytes).toFixed(2)
        : "—",
    })),
  );
  // Where this library's bytes go with keepCheckpoints: 3, per table and index, as multiples of the messages' own.
  for (const backend of ["SQLite", "Postgres"] as const) {
    const kept = results.filter(
      (result) => result.contender === "this library, keepCheckpoints: 3" && result.backend === backend,
    );
    const names = [...new Set(kept.flatMap((result) => Object.keys(result.parts)))].filter((name) =>
      kept.some((result) => result.parts[name]! / result.floor >= 0.005),
    );
    if (kept.length === 0) continue;
    printTable(
      `Where the bytes go: ${backend}, this library with keepCheckpoints: 3, each table and index as a multiple of the messages' own bytes`,
      kept.map((result) => ({
        conversation: typeof result.size === "number" ? `${result.size} messages` : String(result.size),
        total: (result.bytes / result.floor).toFixed(2),
        ...Object.fromEntries(
          names.map((name) => [
            name.replace(/^compaction_/, ""),
            ((result.parts[name] ?? 0) / result.floor).toFixed(2),
          ]),
        ),
      })),
    );
  }
  const largest = Math.max(...sizes);
  const middle = sizes.includes(500) ? 500 : sizes.at(-2);
  for (const backend of ["SQLite", "Postgres"] as const) {
    const kept = at("this library, keepCheckpoints: 3", largest, backend);
    const keptMiddle = middle === undefined ? undefined : at("this library, keepCheckpoints: 3", middle, backend);
    const delta = at("no compaction, MessagesDeltaValue", largest, backend);
    if (!kept || !keptMiddle || !delta) continue;
    printNote(
      `${backend}, keepCheckpoints: 3 — bytes/message at ${largest} messages ${(perMessage(kept) / perMessage(keptMiddle)).toFixed(2)}× that at ${middle} (linear: ≤ 1.3); ` +
        `${(kept.bytes / delta.bytes).toFixed(2)}× the MessagesDeltaValue store (≤ 1); ${(kept.bytes / kept.floor).toFixed(2)}× the messages' own bytes (≤ 4).`,
    );
  }
  return results;
}

/** STORAGE_CONTENDERS=name,name: only the contenders whose name holds one of these (the floor then from their runs). */
const ONLY = process.env.STORAGE_CONTENDERS?.split(",").map((name) => name.trim());

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = process.env.STORAGE_SIZES ? process.env.STORAGE_SIZES.split(",").map(Number) : DEFAULT_PEER_SIZES;
  await readmeBlock("storage", () => benchStorage(sizes), {
    write: !process.env.STORAGE_SIZES && !process.env.STORAGE_CONTENDERS,
  });
}
