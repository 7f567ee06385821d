/**
 * Per-message token cache.
 *
 * Three ways to a cached count: the message object itself (a WeakMap: a thread counted again after a turn holds
 * mostly the same objects); the position in the last whole count of the same sequence (a thread read back from a
 * checkpoint has new objects in the same order); and the message id. Every hit is checked against everything that
 * is counted — type, name, content, tool calls — compared in place, without serializing the message, so a message
 * replaced under the same id misses and a cached count always equals a cold count. Messages without an id are keyed
 * by a hash of that same description.
 *
 * Memory is bounded by bytes, not entries: the id level holds at most `maxBytes` (two generations), and a content or
 * tool-call text longer than VERBATIM_LIMIT (16 KiB) is kept as a fingerprint (its length and two independent 53-bit hashes)
 * rather than a copy, so a few huge messages cannot hold megabytes alive. The object level is a WeakMap: it keeps
 * nothing alive that the thread does not.
 */

import type { BaseMessage } from "@langchain/core/messages";
import { countedCalls, replay } from "./call-tape.js";
import { compact, hash53, sameText } from "./fingerprint.js";
import { GenerationalCache } from "./generational-cache.js";

interface Entry {
  /** The message's id (undefined for a message without one). */
  id: string | undefined;
  type: string;
  name: unknown;
  /** The content as counted: the string itself, or the JSON of a content array. */
  content: string;
  /** JSON of the tool calls ("" when none). */
  calls: string;
  /**
   * A private copy of what is counted of each tool call (name and arguments), compared in place of `calls` so a
   * reloaded message is checked without serializing it; undefined when the calls are long (`calls` is then a
   * fingerprint, compared by serializing).
   */
  counted?: unknown[];
  tokens: number;
}

interface ObjectEntry {
  content: unknown;
  name: unknown;
  toolCalls: unknown;
  entry: Entry;
}

/** Bytes the id level may hold (about; the older half is dropped at once). */
export const DEFAULT_CACHE_BYTES = 16 * 1024 * 1024;
/** Fixed cost of an entry besides its strings (object, Map slot, numbers), in bytes. */
const ENTRY_OVERHEAD = 96;

/** The raw `tool_calls` value, whatever it holds: fingerprinted as stored. */
function rawToolCalls(message: BaseMessage): unknown {
  return (message as BaseMessage & { tool_calls?: unknown }).tool_calls;
}

function typeOf(message: BaseMessage): string {
  const role = (message as BaseMessage & { role?: unknown }).role;
  return role === undefined ? message.getType() : `${message.getType()}:${String(role)}`;
}

function describe(message: BaseMessage): Omit<Entry, "tokens" | "id" | "counted"> {
  const toolCalls = rawToolCalls(message);
  return {
    type: typeOf(message),
    name: message.name,
    content: typeof message.content === "string" ? message.content : JSON.stringify(message.content),
    calls: Array.isArray(toolCalls) && toolCalls.length > 0 ? JSON.stringify(toolCalls) : "",
  };
}

/**
 * What an entry keeps: the description with long texts fingerprinted. Written as one literal: an entry built by
 * object spread was measured 4x slower to read back (1.4 against 0.35 ms to check 2,000 reloaded messages).
 */
function entryOf(
  id: string | undefined,
  described: Omit<Entry, "tokens" | "id" | "counted">,
  toolCalls: unknown,
  tokens: number,
): Entry {
  return {
    id: typeof id === "string" && id.length > 0 ? id : undefined,
    type: described.type,
    name: described.name,
    content: compact(described.content),
    calls: compact(described.calls),
    counted: countedCalls(toolCalls, described.calls),
    tokens,
  };
}

function sameDescription(entry: Entry, described: Omit<Entry, "tokens" | "id" | "counted">): boolean {
  return (
    entry.type === described.type &&
    entry.name === described.name &&
    sameText(entry.calls, described.calls) &&
    sameText(entry.content, described.content)
  );
}

function weigh(key: string, entry: Entry): number {
  const calls = entry.counted ? 2 * entry.calls.length : entry.calls.length;
  return (
    ENTRY_OVERHEAD +
    2 * (key.length + entry.type.length + entry.content.length + calls + String(entry.name ?? "").length)
  );
}

/**
 * Whether a message (a new object under a known id) is what the entry counted: type, name, content, and for an AI
 * message its tool calls (the only ones counted). Reads only properties the message has: a lookup of a missing
 * property (`role`, `tool_calls` on a human message) walks the prototype chain and, over thousands of messages,
 * was the largest cost of the check.
 */
function matches(entry: Entry, message: BaseMessage): boolean {
  const type = message.getType();
  if (type === "generic" ? entry.type !== typeOf(message) : entry.type !== type) return false;
  if (entry.name !== message.name) return false;
  const content = message.content;
  if (!sameText(entry.content, typeof content === "string" ? content : JSON.stringify(content))) return false;
  return type !== "ai" || sameCalls(entry, rawToolCalls(message));
}

/** Whether an AI message's tool calls are those the entry counted (names and arguments). */
function sameCalls(entry: Entry, toolCalls: unknown): boolean {
  const none = !Array.isArray(toolCalls) || toolCalls.length === 0;
  if (entry.calls === "" || none) return entry.calls === "" && none;
  const tape = entry.counted;
  if (tape === undefined) return sameText(entry.calls, JSON.stringify(toolCalls));
  if ((toolCalls as unknown[]).length !== tape[0]) return false;
  let at = 1;
  for (const call of toolCalls as Array<{ name?: unknown; args?: unknown } | null>) {
    if (call?.name !== tape[at]) return false;
    at = replay(tape, at + 1, call?.args);
    if (at < 0) return false;
  }
  return true;
}

/** Sequences remembered by position (see `countAll`), and the slots they may hold in all. */
const MAX_SEQUENCES = 64;
const BYTES_PER_SLOT = 64;

export class MessageTokenCache {
  private readonly byObject = new WeakMap<BaseMessage, ObjectEntry>();
  // Generations instead of an LRU: evicting a Map's oldest key one at a time makes keys().next() walk every
  // deleted entry (quadratic once full).
  private readonly byKey: GenerationalCache<string, Entry>;
  /**
   * The entries of the last whole count of a sequence, in order, keyed by the id of its first message: a thread
   * counted again after a reload is checked position by position, without a hash lookup per message. Cleared
   * whenever the id level drops a generation, so it never keeps alive an entry the id level has let go.
   */
  private readonly sequences = new Map<string, Array<Entry | undefined>>();
  private sequenceSlots = 0;
  private readonly maxSequenceSlots: number;
  /** Messages actually encoded (cache misses) since construction. */
  encoded = 0;
  /** Lookups answered from the cache. */
  hits = 0;

  constructor(maxBytes = DEFAULT_CACHE_BYTES) {
    this.byKey = new GenerationalCache(Math.max(1, Math.floor(maxBytes / 2)), weigh, () => this.forgetSequences());
    this.maxSequenceSlots = Math.floor(maxBytes / BYTES_PER_SLOT);
  }

  get(message: BaseMessage, compute: (message: BaseMessage) => number): number {
    return this.resolve(message, compute).tokens;
  }

  /** The sum of the counts of `messages`, checking them first against the last count of the same sequence. */
  countAll(messages: readonly BaseMessage[], compute: (message: BaseMessage) => number): number {
    return this.countAllFrom(messages, compute, messages.length).total;
  }

  /** `countAll`, and the sum of the counts from position `from` on (in the same pass); `each` gets every count. */
  countAllFrom(
    messages: readonly BaseMessage[],
    compute: (message: BaseMessage) => number,
    from: number,
    each?: number[],
  ): { total: number; after: number } {
    const first = messages[0]?.id;
    const key = typeof first === "string" && first.length > 0 ? first : undefined;
    const memo = key === undefined ? undefined : this.sequences.get(key);
    const entries = new Array<Entry | undefined>(messages.length);
    let total = 0;
    let after = 0;
    for (let index = 0; index < messages.length; index++) {
      const message = messages[index]!;
      const entry = this.resolve(message, compute, memo !== undefined && index < memo.length ? memo[index] : undefined);
      entries[index] = entry;
      if (each) each[index] = entry.tokens;
      total += entry.tokens;
      if (index >= from) after += entry.tokens;
    }
    if (key !== undefined) this.remember(key, entries, memo);
    return { total, after };
  }

  private remember(
    key: string,
    entries: Array<Entry | undefined>,
    replaced: Array<Entry | undefined> | undefined,
  ): void {
    if (replaced !== undefined) {
      this.sequences.delete(key);
      this.sequenceSlots -= replaced.length;
    }
    if (entries.length > this.maxSequenceSlots) return;
    this.sequences.set(key, entries);
    this.sequenceSlots += entries.length;
    for (const [oldest, sequence] of this.sequences) {
      if (this.sequences.size <= MAX_SEQUENCES && this.sequenceSlots <= this.maxSequenceSlots) break;
      this.sequences.delete(oldest);
      this.sequenceSlots -= sequence.length;
    }
  }

  private forgetSequences(): void {
    this.sequences.clear();
    this.sequenceSlots = 0;
  }

  /** The entry of a message: by object, else the `expected` one (from a sequence), else by id or content hash. */
  private resolve(message: BaseMessage, compute: (message: BaseMessage) => number, expected?: Entry): Entry {
    const cached = this.byObject.get(message);
    if (
      cached !== undefined &&
      cached.content === message.content &&
      cached.name === message.name &&
      cached.toolCalls === rawToolCalls(message)
    ) {
      this.hits++;
      return cached.entry;
    }
    const id = message.id;
    if (expected !== undefined && expected.id === id && matches(expected, message)) {
      this.hits++;
      return expected;
    }
    if (typeof id === "string" && id.length > 0) {
      // The path of a reloaded checkpoint (new objects, same ids): compared field by field, without serializing.
      const entry = this.byKey.get(id);
      if (entry !== undefined && matches(entry, message)) {
        this.hits++;
        return entry;
      }
      return this.miss(id, message, describe(message), compute);
    }
    const described = describe(message);
    // A message without an id is keyed by a hash of its description (NUL-prefixed, which no id this cache sees from
    // a checkpoint starts with).
    const key = `\u0000hash:${described.content.length}:${hash53(described.content)}:${hash53(`${described.type}\u0000${String(described.name ?? "")}\u0000${described.calls}`)}`;
    const entry = this.byKey.get(key);
    if (entry !== undefined && sameDescription(entry, described)) {
      this.hits++;
      this.byObject.set(message, {
        content: message.content,
        name: message.name,
        toolCalls: rawToolCalls(message),
        entry,
      });
      return entry;
    }
    return this.miss(key, message, described, compute);
  }

  private miss(
    key: string,
    message: BaseMessage,
    described: Omit<Entry, "tokens" | "id" | "counted">,
    compute: (message: BaseMessage) => number,
  ): Entry {
    const tokens = compute(message);
    this.encoded++;
    const entry = entryOf(message.id, described, rawToolCalls(message), tokens);
    this.byKey.set(key, entry);
    this.byObject.set(message, {
      content: message.content,
      name: message.name,
      toolCalls: rawToolCalls(message),
      entry,
    });
    return entry;
  }
}
