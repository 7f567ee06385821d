/**
 * What model calls cost with a provider's prompt cache: each call's input split into what the cache serves (an exact
 * prefix of the previous call's input, engine/prompt-cache.ts) and what is new, priced by a sheet. Prices are
 * relative to one uncached input token.
 * - Anthropic-like: cache read 0.1, cache write 1.25 (the 5-minute TTL; every new token is written), output 5.
 * - OpenAI-like: cache read 0.1, new input 1 (caching is automatic and free to write), output 4.
 * Both keep the cache for `ttlMinutes` of model time after the last call that used it, and cache nothing under
 * `minimumTokens` (1,024). A call's model time: one minute after the previous call of its session; a new session of
 * a recorded conversation (days later) finds the cache cold.
 */
import type { SummarizerTokens } from "../../../src/engine/summarizer-tokens.js";

export interface PriceSheet {
  name: string;
  read: number;
  write: number;
  output: number;
  ttlMinutes: number;
  minimumTokens: number;
}

export const PRICE_SHEETS: PriceSheet[] = [
  {
    name: "Anthropic-like (read 0.1, write 1.25, output 5; 5 min)",
    read: 0.1,
    write: 1.25,
    output: 5,
    ttlMinutes: 5,
    minimumTokens: 1_024,
  },
  {
    name: "OpenAI-like (read 0.1, new 1, output 4; 10 min)",
    read: 0.1,
    write: 1,
    output: 4,
    ttlMinutes: 10,
    minimumTokens: 1_024,
  },
];

/** One model call, as the cost needs it. */
export interface PricedCall {
  /** Input tokens an exact prefix of the previous call's input. */
  cached: number;
  /** Input tokens after that prefix. */
  fresh: number;
  /**
   * Input tokens new to the conversation (after the last message the previous call sent too): `fresh` unless the
   * call rewrote the history. Prices the bound of scheduling: a compaction that broke no cache.
   */
  appended: number;
  output: number;
  /** Minutes of model time since the previous call (Infinity: another session, or the first call). */
  gapMinutes: number;
  /** Whether this call rewrote what the previous one sent (its prefix ends before the previous input did). */
  rewrite: boolean;
}

export interface CostTotals {
  cost: number;
  input: number;
  cachedRead: number;
  calls: number;
  rewrites: number;
  /** Tokens the rewrites sent again: what each cache-breaking call wrote anew besides what it appended. */
  rewritten: number;
}

/**
 * The cost of `calls` under `sheet`. `unbroken`: price each rewrite as if it broke no cache (everything but what it
 * appends read from the cache, when the cache is warm) — what no scheduling can beat.
 */
export function priceCalls(
  calls: readonly PricedCall[],
  sheet: PriceSheet,
  { unbroken = false }: { unbroken?: boolean } = {},
): CostTotals {
  let cost = 0;
  let input = 0;
  let cachedRead = 0;
  for (const original of calls) {
    const call =
      unbroken && original.rewrite
        ? { ...original, cached: original.cached + original.fresh - original.appended, fresh: original.appended }
        : original;
    const hit = call.gapMinutes <= sheet.ttlMinutes && call.cached >= sheet.minimumTokens ? call.cached : 0;
    cost += hit * sheet.read + (call.cached - hit + call.fresh) * sheet.write + call.output * sheet.output;
    input += call.cached + call.fresh;
    cachedRead += hit;
  }
  const rewrites = calls.filter((call) => call.rewrite);
  return {
    cost,
    input,
    cachedRead,
    calls: calls.length,
    rewrites: rewrites.length,
    rewritten: rewrites.reduce((total, call) => total + call.fresh - call.appended, 0),
  };
}

/**
 * What a summarizer's own calls cost under `sheet` (their input read from the cache as far as the provider said,
 * the rest written or paid in full, their output), in the same units as `priceCalls`: zero for none.
 */
export function priceSummarizer(tokens: SummarizerTokens | undefined, sheet: PriceSheet): number {
  if (!tokens) return 0;
  return (
    tokens.cachedInput * sheet.read + (tokens.input - tokens.cachedInput) * sheet.write + tokens.output * sheet.output
  );
}
