import { TokenCounter } from "./token-counter.js";

let shared: TokenCounter | undefined;

/** One "gpt-4o" counter per process for callers given none (its cache makes repeated counts cheap). */
export function sharedCounter(): TokenCounter {
  shared ??= new TokenCounter();
  return shared;
}
