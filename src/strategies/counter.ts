import { TokenCounter } from "../tokens/token-counter.js";

let shared: TokenCounter | undefined;

/** One counter per process for strategies called without one (its cache makes repeated counts cheap). */
export function defaultCounter(): TokenCounter {
  shared ??= new TokenCounter();
  return shared;
}
