/**
 * A summarizer that advances only on macrotasks, as a summary computed in time slices (or answered by a worker
 * thread, or over the network) does: it hands the event loop `hops` turns (`setImmediate`) before it summarizes as
 * the extractive summarizer does. An application that runs turns back to back with a synchronous saver and a fast
 * model never yields a macrotask, so this summary finishes only when something waits for it — which is what the
 * scheduler's bound on lateness must make happen. No timing involved: the hops are counted, not timed.
 */
import { ExtractiveSummarizer } from "../../../src/summarizers/extractive.js";
import type { SummarizeInput, Summarizer } from "../../../src/summarizers/types.js";

export class MacrotaskSummarizer implements Summarizer {
  readonly name = "macrotask";
  readonly maxTokens = Number.POSITIVE_INFINITY;
  /** Summaries started, and finished. */
  started = 0;
  finished = 0;
  private readonly inner = new ExtractiveSummarizer();

  constructor(private readonly hops = 3) {}

  async summarize(input: SummarizeInput): Promise<string> {
    this.started++;
    for (let hop = 0; hop < this.hops; hop++) await new Promise((resolve) => setImmediate(resolve));
    const text = await this.inner.summarize(input);
    this.finished++;
    return text;
  }
}
