/**
 * Choosing what fits in the budget.
 *
 * - Near-duplicates are merged: a sentence whose content words are mostly (NEAR_DUPLICATE) contained in a
 *   better-valued one adds nothing; the better one is kept. Unless it holds a number or an identifier the better one
 *   does not: "ADR-444 chose Frankfurt" and "ADR-494 chose Frankfurt" are two records, not one said twice.
 * - Value per token: a short sentence stating a fact beats a long one that collects the same words by sheer length.
 * - A fair share: the budget is split between the lines carried from the previous summary and the new segment in
 *   proportion to the messages each stands for, so every covered message has the same claim on the summary,
 *   however old. Old facts survive (they compete for the old share among themselves), but never by starving the
 *   new segment; a share one side cannot use goes to the other.
 */
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { Candidate } from "./candidates.js";
import { drain } from "../../slices.js";
import { isFigure } from "../../messages/words.js";

/** Share of a sentence's content words found in a better one, above which it is a near-duplicate. */
export const NEAR_DUPLICATE = 0.8;

export interface Priced extends Candidate {
  tokens: number;
}

/**
 * Drops filler and near-duplicates (keeping the better-valued sentence of each group), in time linear in the
 * candidates for real text. A kept sentence that holds NEAR_DUPLICATE of a candidate's words holds at least one of
 * its `size − needed + 1` rarest words (prefix filtering), so only the kept sentences indexed under those words are
 * compared — the same answer as comparing with every kept sentence.
 */
export function distinct(candidates: readonly Candidate[]): Candidate[] {
  return drain(distinctSteps(candidates));
}

/** `distinct` one candidate at a time (see slices.ts). */
export function* distinctSteps(candidates: readonly Candidate[]): Generator<void, Candidate[]> {
  const ranked = candidates
    .filter((candidate) => !candidate.filler && candidate.value > 0)
    .sort((a, b) => b.value - a.value || a.order - b.order);
  const frequency = new Map<string, number>();
  for (const candidate of ranked)
    for (const word of candidate.content) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  const rarer = (a: string, b: string) => frequency.get(a)! - frequency.get(b)! || (a < b ? -1 : a > b ? 1 : 0);
  const kept: Candidate[] = [];
  const keptWith = new Map<string, number[]>();
  for (const candidate of ranked) {
    const size = candidate.content.size;
    const needed = Math.ceil(NEAR_DUPLICATE * size);
    let duplicate = needed === 0 ? kept.length > 0 : false;
    if (!duplicate) {
      const prefix = [...candidate.content].sort(rarer).slice(0, size - needed + 1);
      const compared = new Set<number>();
      search: for (const word of prefix) {
        for (const index of keptWith.get(word) ?? []) {
          if (compared.has(index)) continue;
          compared.add(index);
          let shared = 0;
          let figureMissing = false;
          for (const other of candidate.content) {
            if (kept[index]!.content.has(other)) shared++;
            else if (isFigure(other)) figureMissing = true;
          }
          if (shared >= NEAR_DUPLICATE * size && !figureMissing) {
            duplicate = true;
            break search;
          }
        }
      }
    }
    yield;
    if (duplicate) continue;
    for (const word of candidate.content) {
      const list = keptWith.get(word);
      if (list) list.push(kept.length);
      else keptWith.set(word, [kept.length]);
    }
    kept.push(candidate);
  }
  return kept;
}

/**
 * Greedy selection by value per token within `budget`, `shareNew` of it reserved for the new segment (the rest for
 * lines from the previous summary), leftovers pooled. `lineCost` is paid once per line, by its first sentence. One
 * candidate is priced at a time (see slices.ts).
 */
export function* selectionSteps(
  candidates: readonly Candidate[],
  budget: number,
  shareNew: number,
  counter: TokenCounter,
  lineCost: number,
): Generator<void, Priced[]> {
  const priced: Priced[] = [];
  for (const candidate of candidates) {
    priced.push({ ...candidate, tokens: counter.countText(candidate.text) + 1 });
    yield;
  }
  const density = (candidate: Priced) => candidate.value / (candidate.tokens + lineCost);
  const ranked = [...priced].sort((a, b) => density(b) - density(a) || a.order - b.order);
  const chosen = new Set<Priced>();
  const openLines = new Set<number>();
  let used = 0;
  const take = (pool: Priced[], limit: number) => {
    let spent = 0;
    for (const candidate of pool) {
      if (chosen.has(candidate)) continue;
      const cost = candidate.tokens + (openLines.has(candidate.line) ? 0 : lineCost);
      if (spent + cost > limit || used + cost > budget) continue;
      chosen.add(candidate);
      openLines.add(candidate.line);
      spent += cost;
      used += cost;
    }
  };
  const fresh = ranked.filter((candidate) => !candidate.fromPrevious);
  const carried = ranked.filter((candidate) => candidate.fromPrevious);
  const newShare = Math.floor(budget * shareNew);
  take(fresh, newShare);
  take(carried, budget - newShare);
  take(ranked, budget);
  return [...chosen].sort((a, b) => a.order - b.order);
}
