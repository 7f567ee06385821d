/**
 * Per-message token cache.
 *
 * Two levels: the message object itself (a WeakMap: a thread counted again after a turn holds mostly the same
 * objects), and the message id with a comparison of everything that is counted — type, name, content, tool calls —
 * so a checkpoint loaded again (new objects, same messages) still hits, while a message replaced under the same id
 * misses. Messages without an id are keyed by a hash of that same description. An entry can never be stale: every
 * hit is checked against the values that were counted, so a cached count always equals a cold count.
 *
 * Memory is bounded by bytes, not entries: the id level holds at most `maxBytes` (two generations), and a content or
 * tool-call text longer than VERBATIM_LIMIT is kept as a fingerprint (its length and two independent 53-bit hashes)
 * rather than a copy, so a few huge messages cannot hold megabytes alive. The object level is a WeakMap: it keeps
 * nothing alive that the thread does not.
 */

import type { BaseMessage } from "@langchain/core/messages";
import { GenerationalCache } from "./generational-cache.js";

interface Entry {
  type: string;
  name: unknown;
  /** The content as counted: the string itself, or the JSON of a content array. */
  content: string;
  /** JSON of the tool calls ("" when none). */
  calls: string;
  tokens: number;
}

interface ObjectEntry {
  content: unknown;
  name: unknown;
  toolCalls: unknown;
  tokens: number;
}

/** Bytes the id level may hold (about; the older half is dropped at once). */
export const DEFAULT_CACHE_BYTES = 16 * 1024 * 1024;
/** Texts longer than this are kept as a fingerprint, not verbatim. */
export const VERBATIM_LIMIT = 1_024;
/** Fixed cost of an entry besides its strings (object, Map slot, numbers), in bytes. */
const ENTRY_OVERHEAD = 96;

// cyrb53: a fast, well-mixed 53-bit string hash (public domain), for messages that have no id.
function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

function toolCallsOf(message: BaseMessage): unknown {
  return (message as BaseMessage & { tool_calls?: unknown }).tool_calls;
}

function typeOf(message: BaseMessage): string {
  const role = (message as BaseMessage & { role?: unknown }).role;
  return role === undefined ? message.getType() : `${message.getType()}:${String(role)}`;
}

const FINGERPRINT = "\u0000fingerprint:";

/** The text itself when short, else a fingerprint: its length and two independent 53-bit hashes. */
function compact(text: string): string {
  if (text.length <= VERBATIM_LIMIT) return text;
  return `${FINGERPRINT}${text.length}:${hash53(text)}:${hash53(text, 0x9e3779b9)}`;
}

/** `text` is what `kept` (a compact()ed text) was made from; hashes only when the lengths already agree. */
function sameText(kept: string, text: string): boolean {
  if (text.length <= VERBATIM_LIMIT) return kept === text;
  return kept.startsWith(`${FINGERPRINT}${text.length}:`) && kept === compact(text);
}

function describe(message: BaseMessage): Omit<Entry, "tokens"> {
  const toolCalls = toolCallsOf(message);
  return {
    type: typeOf(message),
    name: message.name,
    content: typeof message.content === "string" ? message.content : JSON.stringify(message.content),
    calls: Array.isArray(toolCalls) && toolCalls.length > 0 ? JSON.stringify(toolCalls) : "",
  };
}

/** What an entry keeps: the description with long texts fingerprinted. */
function stored(described: Omit<Entry, "tokens">): Omit<Entry, "tokens"> {
  return { ...described, content: compact(described.content), calls: compact(described.calls) };
}

function sameDescription(entry: Entry, described: Omit<Entry, "tokens">): boolean {
  return (
    entry.type === described.type &&
    entry.name === described.name &&
    sameText(entry.calls, described.calls) &&
    sameText(entry.content, described.content)
  );
}

function weigh(key: string, entry: Entry): number {
  return ENTRY_OVERHEAD + 2 * (key.length + entry.type.length + entry.content.length + entry.calls.length + String(entry.name ?? "").length);
}

export class MessageTokenCache {
  private readonly byObject = new WeakMap<BaseMessage, ObjectEntry>();
  // Generations instead of an LRU: evicting a Map's oldest key one at a time makes keys().next() walk every
  // deleted entry (quadratic once full).
  private readonly byKey: GenerationalCache<string, Entry>;
  /** Messages actually encoded (cache misses) since construction. */
  encoded = 0;
  /** Lookups answered from the cache. */
  hits = 0;

  constructor(maxBytes = DEFAULT_CACHE_BYTES) {
    this.byKey = new GenerationalCache(Math.max(1, Math.floor(maxBytes / 2)), weigh);
  }

  get(message: BaseMessage, compute: (message: BaseMessage) => number): number {
    const cached = this.byObject.get(message);
    if (
      cached !== undefined &&
      cached.content === message.content &&
      cached.name === message.name &&
      cached.toolCalls === toolCallsOf(message)
    ) {
      this.hits++;
      return cached.tokens;
    }
    const described = describe(message);
    // Ids are keys as they are; a message without one is keyed by a hash of its description (NUL-prefixed, which
    // no id this cache sees from a checkpoint starts with).
    const key =
      typeof message.id === "string" && message.id.length > 0
        ? message.id
        : `\u0000hash:${described.content.length}:${hash53(described.content)}:${hash53(`${described.type}\u0000${String(described.name ?? "")}\u0000${described.calls}`)}`;
    const entry = this.byKey.get(key);
    let tokens: number;
    if (entry !== undefined && sameDescription(entry, described)) {
      this.hits++;
      tokens = entry.tokens;
    } else {
      tokens = compute(message);
      this.encoded++;
      this.byKey.set(key, { ...stored(described), tokens });
    }
    this.byObject.set(message, { content: message.content, name: message.name, toolCalls: toolCallsOf(message), tokens });
    return tokens;
  }

  clear(): void {
    this.byKey.clear();
  }
}
