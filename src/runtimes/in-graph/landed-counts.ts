/**
 * The count of the head a model call's compaction landed, kept for that call's count after the model: the state after
 * the call starts with those very messages, so only what the call added is counted (a compaction counts the thread
 * twice, not three times). One entry per thread's compaction at most, gone with it.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { TokenCounter } from "../../tokens/token-counter.js";

export class LandedCounts<Key extends object> {
  private readonly counts = new WeakMap<Key, { messages: readonly BaseMessage[]; each: readonly number[] }>();

  constructor(private readonly counter: TokenCounter) {}

  landed(key: Key, messages: readonly BaseMessage[], each: readonly number[]): void {
    this.counts.set(key, { messages, each });
  }

  /** The count of each of `messages` when they start with what landed (the same objects); taken once. */
  take(key: Key, messages: readonly BaseMessage[]): number[] | undefined {
    const landed = this.counts.get(key);
    this.counts.delete(key);
    if (!landed || messages.length < landed.messages.length) return undefined;
    if (!landed.messages.every((message, index) => messages[index] === message)) return undefined;
    return [...landed.each, ...this.counter.countEach(messages.slice(landed.messages.length))];
  }
}
