/**
 * The tool-output archive: tool results above a threshold are moved into a LangGraph `BaseStore` (InMemoryStore,
 * PostgresStore, or SqliteStore in the checkpoints' own file) and replaced in the history by a pointer — head and
 * tail excerpts, the size in tokens, lines and characters, and the archive key — that `createArchiveReaderTool()`
 * reads back, page by page. The pointer keeps the message's id and tool call id, so pairing holds.
 */
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { createHash } from "node:crypto";
import { parseOptions } from "../options/check.js";
import type { z } from "zod";
import { ARCHIVE_OPTIONS } from "../options/archive-fields.js";
import { editOf, editToolMessage, excerpt, measure } from "../strategies/edit.js";
import { isPinned } from "../messages/pins.js";
import { TokenCounter } from "../tokens/token-counter.js";
import { CompactionError } from "../errors.js";
import type { ArchiveResult, OutputArchive } from "./types.js";

export type { ArchiveResult } from "./types.js";

export const DEFAULT_ARCHIVE_NAMESPACE = ["archived-outputs"];
export const ARCHIVE_READER_TOOL = "read_archived_output";

/** What the archive takes (`ARCHIVE_OPTIONS`); without a store, a runtime in a graph gives the graph's. */
export type ArchiveOptions = z.input<typeof ARCHIVE_OPTIONS>;

export interface ArchivedOutput {
  content: string;
  tool: string | null;
  toolCallId: string;
  messageId: string | null;
  threadId: string | null;
  tokens: number;
  lines: number;
  chars: number;
  archivedAt: string;
}

export function archiveKey(threadId: string | undefined, toolCallId: string, content: string): string {
  return `out_${createHash("sha256")
    .update(`${threadId ?? ""}\u0000${toolCallId}\u0000${content}`)
    .digest("hex")
    .slice(0, 20)}`;
}

export class ToolOutputArchive implements OutputArchive {
  readonly store?: BaseStore;
  readonly namespace: string[];
  private readonly thresholdTokens: number;
  private readonly headChars: number;
  private readonly tailChars: number;
  private readonly keep: number;
  private readonly counter: TokenCounter;

  /** `counter`: what measures outputs. @default a TokenCounter for "gpt-4o" */
  constructor(options: ArchiveOptions & { counter?: TokenCounter } = {}) {
    const { counter, ...given } = options;
    const {
      store,
      thresholdTokens = 500,
      headChars = 2000,
      tailChars = 1000,
      keep = 1,
      namespace = DEFAULT_ARCHIVE_NAMESPACE,
    } = parseOptions("archive", ARCHIVE_OPTIONS, given, (key) => (key ? `archive.${key}` : "archive"));
    this.store = store;
    this.namespace = namespace;
    this.thresholdTokens = thresholdTokens;
    this.headChars = headChars;
    this.tailChars = tailChars;
    this.keep = keep;
    this.counter = counter ?? new TokenCounter();
  }

  /** The pointer text that replaces an archived output: a header naming the key, then head and tail excerpts. */
  pointer(
    key: string,
    tool: string | undefined,
    size: { tokens: number; lines: number; chars: number; text: string },
  ): string {
    return (
      `[archived tool output of ${tool ?? "a tool"}: ${size.tokens} tokens, ${size.lines} lines, ${size.chars} characters; key "${key}". ` +
      `Read it in full with ${ARCHIVE_READER_TOOL}({ key: "${key}", page: 1 }).]\n${excerpt(size.text, this.headChars, this.tailChars)}`
    );
  }

  /** The tool results `archive` would move: above the threshold, not among the newest `keep`, not pinned or edited. */
  private candidates(messages: readonly BaseMessage[]): Array<{ index: number; size: ReturnType<typeof measure> }> {
    const tools = messages.flatMap((message, index) => (ToolMessage.isInstance(message) ? [index] : []));
    return tools
      .slice(0, Math.max(0, tools.length - this.keep))
      .filter((index) => !editOf(messages[index]!) && !isPinned(messages[index]!, index))
      .map((index) => ({ index, size: measure(messages[index]!, this.counter) }))
      .filter(({ size }) => size.tokens > this.thresholdTokens);
  }

  /** True when `archive(messages)` would move something (a cheap check before reading the stored head). */
  hasCandidates(messages: readonly BaseMessage[]): boolean {
    return this.candidates(messages).length > 0;
  }

  /**
   * Move every tool result above the threshold (except the newest `keep`, pinned ones and those already archived)
   * into the store, and return the history with pointers. The store is written before the history is returned, so
   * a pointer never names a missing output. Does not mutate `messages`.
   */
  async archive(
    messages: readonly BaseMessage[],
    { threadId, store: given }: { threadId?: string; store?: BaseStore } = {},
  ): Promise<ArchiveResult> {
    const store = this.storeOr(given);
    const result = [...messages];
    const archived: string[] = [];
    for (const { index, size } of this.candidates(messages)) {
      const message = result[index] as ToolMessage;
      const key = archiveKey(threadId, message.tool_call_id, size.text);
      const value: ArchivedOutput = {
        content: size.text,
        tool: message.name ?? null,
        toolCallId: message.tool_call_id,
        messageId: message.id ?? null,
        threadId: threadId ?? null,
        tokens: size.tokens,
        lines: size.lines,
        chars: size.chars,
        archivedAt: new Date().toISOString(),
      };
      await store.put(this.namespace, key, value as unknown as Record<string, unknown>);
      result[index] = editToolMessage(message, this.pointer(key, message.name, size), {
        strategy: "archive",
        action: "archived",
        originalTokens: size.tokens,
        originalLines: size.lines,
        originalChars: size.chars,
        ...({ key } as object),
      });
      archived.push(key);
    }
    return { messages: result, archived };
  }

  /** The archived output under `key`, or null. */
  async read(key: string, store?: BaseStore): Promise<ArchivedOutput | null> {
    const item = await this.storeOr(store).get(this.namespace, key);
    return item ? (item.value as unknown as ArchivedOutput) : null;
  }

  /** Its own store, else `given`. @throws CompactionError INVALID_ARGUMENT with neither (a wrapper, not in a graph). */
  private storeOr(given: BaseStore | undefined): BaseStore {
    const store = this.store ?? given;
    if (store) return store;
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "archive.store",
      value: undefined,
      message:
        "archive.store must be a LangGraph BaseStore (InMemoryStore, PostgresStore, SqliteStore): outside a graph there is no graph's store to write to",
    });
  }
}
