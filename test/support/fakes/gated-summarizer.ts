/**
 * A summarizer held at a gate: each call tells `started` and waits until the test opens the gate, then summarizes
 * as the extractive summarizer does. Lets a test hold a summary in flight while turns go on (no timing involved).
 */
import { ExtractiveSummarizer } from "../../../src/summarizers/extractive.js";
import type { SummarizeInput, Summarizer } from "../../../src/summarizers/types.js";

export class GatedSummarizer implements Summarizer {
  readonly name = "gated";
  readonly maxTokens = Number.POSITIVE_INFINITY;
  calls = 0;
  private readonly inner = new ExtractiveSummarizer();
  private open = false;
  private waiting: Array<() => void> = [];

  async summarize(input: SummarizeInput): Promise<string> {
    this.calls++;
    if (!this.open) await new Promise<void>((resolve) => this.waiting.push(resolve));
    return this.inner.summarize(input);
  }

  /** Lets every held call go on, and every later one pass. */
  release(): void {
    this.open = true;
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  /** Holds the next calls again. */
  close(): void {
    this.open = false;
  }
}
