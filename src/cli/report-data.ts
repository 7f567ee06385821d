/**
 * What `report` shows of a thread, gathered once from the store: its tokens at the end of each turn and at each
 * write of this library, every compaction with what it took out and what its summary kept, the whole transcript in
 * order (the compacted messages from the recall index, then the head) and what the thread takes in the store.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { cacheSplit, rewrittenTokens } from "../engine/prompt-cache.js";
import { getSummaryProvenance, isSummaryMessage, summaryText } from "../messages/summary-message.js";
import { MAX_TRANSCRIPT_PAGE, readTranscript } from "../recall/transcript.js";
import { recallRole, recallText } from "../store/recall-index/entries.js";
import type { ThreadStore, ThreadStorage } from "../store/thread-store.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { timelineOf, type TimelineRow } from "./timeline.js";

export interface ReportPoint {
  checkpointId: string;
  /** Turns ended at or before this checkpoint. */
  turn: number;
  tokens: number;
  messages: number;
  kind: "turn" | "compaction" | "restore";
  ts: string;
  /**
   * A turn's: of its tokens, those an exact prefix of the turn before's — what the provider's prompt cache serves its
   * first call (engine/prompt-cache.ts, at turn granularity); a compaction between them leaves little of it.
   */
  cached?: number;
}

export interface ReportMessage {
  role: string;
  name?: string;
  text: string;
}

export interface ReportCompaction {
  checkpointId: string;
  /** Its index in `points`. */
  point: number;
  turn: number;
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  /** The messages the write took out of the head (summarized, or removed by a strategy). */
  removed: ReportMessage[];
  /** The prompt cache the write broke: the new head from its first changed message on (engine/prompt-cache.ts). */
  rewrittenTokens: number;
  summarizer?: string;
  /** The summary text the write left in the head (without its header). */
  summary?: string;
  superseded: boolean;
}

export interface TranscriptLine extends ReportMessage {
  /** "compacted": out of the head, kept in the recall index; "head": in the head; "summary": a summary in the head. */
  where: "compacted" | "head" | "summary";
}

export interface ThreadReport {
  threadId: string;
  generatedAt: string;
  limit: number;
  headCheckpointId: string;
  points: ReportPoint[];
  compactions: ReportCompaction[];
  transcript: TranscriptLine[];
  /** Of the turns' tokens (every turn after the first), the share a prefix of the turn before's: see `ReportPoint.cached`. */
  cacheShare?: number;
  storage: (ThreadStorage & { indexEntries: number }) | { checkpoints: number; indexEntries: number };
}

function reportMessage(message: BaseMessage): ReportMessage {
  return {
    role: recallRole(message),
    ...(message.name ? { name: message.name } : {}),
    text: isSummaryMessage(message) ? summaryText(message) : recallText(message),
  };
}

function kindOf(row: TimelineRow): ReportPoint["kind"] | undefined {
  if (row.compaction) return "compaction";
  if (row.restore) return "restore";
  return row.turnEnd ? "turn" : undefined;
}

export async function threadReport(
  store: ThreadStore,
  threadId: string,
  counter: TokenCounter,
  limit: number,
): Promise<ThreadReport> {
  const { rows, messages } = await timelineOf(store, threadId, counter);
  const points: ReportPoint[] = [];
  const compactions: ReportCompaction[] = [];
  const byId = new Map(rows.map((row, index) => [row.checkpointId, index]));
  let turn = 0;
  let lastTurn: readonly BaseMessage[] | undefined;
  for (const [index, row] of rows.entries()) {
    if (row.source === "input") turn++;
    const kind = kindOf(row);
    if (!kind) continue;
    const cached =
      kind === "turn" && lastTurn
        ? cacheSplit({ messages: lastTurn }, { messages: messages[index]! }, counter).cached
        : undefined;
    points.push({
      checkpointId: row.checkpointId,
      turn,
      tokens: row.tokens,
      messages: row.messages,
      kind,
      ts: row.ts,
      ...(cached === undefined ? {} : { cached }),
    });
    if (kind === "turn") lastTurn = messages[index]!;
    if (kind !== "compaction") continue;
    const parent = row.parentId !== null && byId.has(row.parentId) ? byId.get(row.parentId)! : index - 1;
    const before = messages[parent] ?? [];
    const after = messages[index]!;
    const kept = new Set(after.map((message) => message.id));
    const summary = after.find((message) => isSummaryMessage(message));
    compactions.push({
      checkpointId: row.checkpointId,
      point: points.length - 1,
      turn,
      tokensBefore: rows[parent]?.tokens ?? 0,
      tokensAfter: row.tokens,
      messagesBefore: before.length,
      messagesAfter: after.length,
      removed: before.filter((message) => !kept.has(message.id) && !isSummaryMessage(message)).map(reportMessage),
      rewrittenTokens: rewrittenTokens(before, after, counter),
      ...(summary ? { summarizer: getSummaryProvenance(summary)!.summarizer, summary: summaryText(summary) } : {}),
      superseded: row.superseded,
    });
  }
  // The whole conversation, in order, as readTranscript gives it.
  const transcript: TranscriptLine[] = [];
  let indexEntries = 0;
  for (let after: number | undefined; ;) {
    const page = await readTranscript(
      store.saver,
      { configurable: { thread_id: threadId } },
      { limit: MAX_TRANSCRIPT_PAGE, ...(after === undefined ? {} : { after }) },
    );
    for (const line of page.messages) {
      transcript.push({
        ...reportMessage(line.message),
        where: line.source === "transcript" ? "compacted" : line.source,
      });
      if (line.source === "transcript") indexEntries++;
    }
    if (page.next === undefined) break;
    after = page.next;
  }
  const stored = await store.storageOf(threadId);
  const turns = points.filter((point) => point.cached !== undefined);
  const turnTokens = turns.reduce((sum, point) => sum + point.tokens, 0);
  return {
    threadId,
    generatedAt: new Date().toISOString(),
    limit,
    headCheckpointId: rows.at(-1)?.checkpointId ?? "",
    points,
    compactions,
    transcript,
    ...(turnTokens > 0 ? { cacheShare: turns.reduce((sum, point) => sum + point.cached!, 0) / turnTokens } : {}),
    storage: { ...(stored ?? { checkpoints: rows.length }), indexEntries },
  };
}

/**
 * The report's checkpoint count in words. The conversation's own checkpoints (the root namespace) are what `list` and
 * `history` count; a supervisor's sub-agents keep checkpoints of their own (subgraph namespaces), named apart.
 */
export function checkpointsInWords(storage: ThreadReport["storage"], format: (value: number) => string): string {
  const subgraph = "subgraphCheckpoints" in storage ? storage.subgraphCheckpoints : 0;
  if (subgraph === 0) return `${format(storage.checkpoints)} checkpoints`;
  return `${format(storage.checkpoints - subgraph)} checkpoints of the conversation + ${format(subgraph)} of sub-agents (subgraph namespaces)`;
}
