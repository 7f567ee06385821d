/**
 * Side by side with the peers: the same generated conversations (planted facts, handoffs, bulky and parallel tool
 * calls) played through a real createAgent graph per contender, at the same token budget (25% of the conversation's
 * tokens), on a SQLite file each. Run: npm run bench:peers (sizes: PEERS_SIZES=50,200,500,2000).
 */
import "../../src/store/all-backends.js";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdtempSync, rmSync, statSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SystemMessage } from "@langchain/core/messages";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { generateConversation, probeQuestion, type Conversation } from "../workload/conversation.js";
import { conversationMessages } from "../workload/conversation-messages.js";
import { QUARTERS, scoreRetention } from "../workload/retention.js";
import { CONTENDERS, SYSTEM_PROMPT, type Contender } from "./peers/contenders.js";
import { createPlayer, type CallRecord } from "./peers/player.js";
import { printTable } from "./table.js";
import { readmeBlock } from "./readme-block.js";

export const DEFAULT_PEER_SIZES = [50, 200, 500, 2_000];
export const BUDGET_SHARE = 0.25;

export interface PeerResult {
  size: number;
  contender: string;
  budget: number;
  turns: number;
  msPerTurn: number;
  tokensMean: number;
  tokensMax: number;
  modelCalls: number;
  summarizerCalls: number;
  summarizerTokens: number;
  rejected: number;
  retention: number;
  byQuarter: number[];
  storageBytes: number;
  /** Every model call of the played turns, as the model received it (bench:cost prices them). */
  calls: CallRecord[];
}

function fileBytes(path: string): number {
  return [path, `${path}-wal`].reduce((sum, file) => sum + (existsSync(file) ? statSync(file).size : 0), 0);
}

export async function runContender(
  contender: Contender,
  conversation: Conversation,
  budget: number,
  counter: TokenCounter,
  dir: string,
): Promise<Omit<PeerResult, "size">> {
  const path = join(dir, `${contender.name.replace(/\W+/g, "-")}-${conversation.messages}.sqlite`);
  const saver = SqliteSaver.fromConnString(path);
  const player = createPlayer(conversation, counter);
  const running = contender.build(player, saver, budget, counter);
  let turnMs = 0;
  for (let turn = 0; turn < conversation.turns.length; turn++) {
    player.begin(turn);
    const started = performance.now();
    await running.invoke(conversation.turns[turn]!.user, "peers");
    turnMs += performance.now() - started;
  }
  const turnRecords = player.records.length;
  player.begin("probe");
  await running.invoke(probeQuestion(conversation), "peers");
  const score = scoreRetention(conversation, player.lastSeen);
  // Only the played turns' calls count for tokens (the probe adds every question at once).
  const calls = player.records.slice(0, turnRecords);
  saver.db.pragma("wal_checkpoint(TRUNCATE)");
  const storageBytes = fileBytes(path);
  saver.db.close();
  rmSync(path, { force: true });
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
  return {
    contender: contender.name,
    budget,
    turns: conversation.turns.length,
    msPerTurn: turnMs / conversation.turns.length,
    tokensMean: calls.reduce((sum, call) => sum + call.tokens, 0) / calls.length,
    tokensMax: Math.max(...calls.map((call) => call.tokens)),
    modelCalls: calls.length,
    summarizerCalls: running.summarizer.calls,
    summarizerTokens: running.summarizer.tokensRead,
    rejected: player.records.filter((call) => call.rejected).length,
    retention: score.share,
    byQuarter: score.byQuarter,
    storageBytes,
    calls,
  };
}

const pct = (value: number) => (Number.isNaN(value) ? "—" : `${Math.round(value * 100)}%`);

export async function benchPeers(sizes = DEFAULT_PEER_SIZES, contenders = CONTENDERS): Promise<PeerResult[]> {
  const counter = new TokenCounter();
  const dir = mkdtempSync(join(tmpdir(), "compaction-peers-"));
  const results: PeerResult[] = [];
  try {
    // Warm-up: one small conversation through every contender (JIT, module state), not measured.
    const warmup = generateConversation({ seed: 99, messages: 60 });
    for (const contender of contenders) await runContender(contender, warmup, 500, counter, dir);
    for (const size of sizes) {
      const conversation = generateConversation({ seed: 11, messages: size });
      const total = counter.countMessages([new SystemMessage(SYSTEM_PROMPT), ...conversationMessages(conversation)]);
      const budget = Math.max(400, Math.floor(total * BUDGET_SHARE));
      for (const contender of contenders) {
        const result = await runContender(contender, conversation, budget, counter, dir);
        results.push({ size, ...result });
        process.stderr.write(
          `  ${size} messages, ${contender.name}: ${result.msPerTurn.toFixed(1)} ms/turn, retention ${pct(result.retention)}\n`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const reference = (size: number) =>
    results.find((result) => result.size === size && result.contender === "no compaction");
  printTable(
    `Peers: same conversations, budget ${BUDGET_SHARE * 100}% of each conversation's tokens, fake model (0 ms), SQLite (npm run bench:peers)`,
    results.map((result) => ({
      messages: result.size,
      contender: result.contender,
      budget: result.budget,
      "ms/turn": result.msPerTurn.toFixed(2),
      "× none": reference(result.size) ? (result.msPerTurn / reference(result.size)!.msPerTurn).toFixed(2) : "—",
      "tokens/call mean": Math.round(result.tokensMean),
      max: result.tokensMax,
      "summ. calls": result.summarizerCalls,
      "summ. tokens read": result.summarizerTokens,
      rejected: result.rejected,
      retention: pct(result.retention),
      ...Object.fromEntries(QUARTERS.map((quarter, index) => [quarter, pct(result.byQuarter[index]!)])),
      "storage MB": (result.storageBytes / 1e6).toFixed(1),
    })),
  );
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = process.env.PEERS_SIZES ? process.env.PEERS_SIZES.split(",").map(Number) : DEFAULT_PEER_SIZES;
  await readmeBlock("peers", () => benchPeers(sizes), { write: !process.env.PEERS_SIZES });
}
