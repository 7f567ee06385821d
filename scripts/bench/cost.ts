/**
 * What a conversation costs with the provider's prompt cache (`npm run bench:cost`): the retention benchmark's
 * conversations replayed through each contender at the same budget (25% of the conversation), every model call's
 * exact input recorded, split into what the cache serves (an exact prefix of the previous call's input,
 * engine/prompt-cache.ts) and what is new, and priced under two sheets (cost/pricing.ts). Beside each contender, the
 * evidence its model calls held in the same run (bench:retention's figure), so cost and what survives read together.
 * The summarizers are offline here (the library's extractive one; summarizationMiddleware over the same extractive
 * text as a chat model): their calls cost nothing. "No compaction" never passes a 128k window on these
 * conversations (its largest call is printed).
 * Run: npm run bench:cost [-- --data <file>]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { PRICE_SHEETS, priceCalls, type PricedCall } from "./cost/pricing.js";
import { DEFAULT_DATA, runRetention, sqliteStore } from "./retention.js";
import { loadDialogues } from "./retention/dataset.js";
import { RETENTION_CONTENDERS, type RetentionContender } from "./retention/contenders.js";
import { printNote, printTable } from "./table.js";
import { readmeBlock } from "./readme-block.js";

const BUDGET = 0.25;
const CONTENDERS = ["no compaction", "trimMessages (sliding window)", "summarizationMiddleware (same summarizer)", "this library (defaults, offline)", "this library as createAgent middleware"];

interface Run {
  name: string;
  calls: PricedCall[];
  turns: number;
  evidence: number;
  scored: number;
  maxInput: number;
}

export async function benchCost({ data = DEFAULT_DATA, contenders = RETENTION_CONTENDERS.filter((contender) => CONTENDERS.includes(contender.name)) }: { data?: string; contenders?: RetentionContender[] } = {}): Promise<void> {
  const dialogues = loadDialogues(data);
  const counter = new TokenCounter();
  const dir = mkdtempSync(join(tmpdir(), "compaction-cost-"));
  const runs: Run[] = [];
  try {
    for (const contender of contenders) {
      const run: Run = { name: contender.name, calls: [], turns: 0, evidence: 0, scored: 0, maxInput: 0 };
      for (const dialogue of dialogues) {
        const result = await runRetention(dialogue, contender, BUDGET, counter, sqliteStore(dir));
        run.calls.push(...result.pricedCalls);
        run.turns += result.calls;
        run.evidence += result.tally.evidence;
        run.scored += result.tally.scored;
        run.maxInput = Math.max(run.maxInput, result.tokensMax);
      }
      runs.push(run);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const baseline = runs.find((run) => run.name === "no compaction");
  for (const sheet of PRICE_SHEETS) {
    const reference = baseline ? priceCalls(baseline.calls, sheet).cost : undefined;
    printTable(
      `What ${dialogues.length} retention conversations cost at a ${BUDGET * 100}% budget, ${sheet.name}; cost relative to no compaction with caching`,
      runs.map((run) => {
        const totals = priceCalls(run.calls, sheet);
        return {
          contender: run.name,
          calls: String(totals.calls),
          "mean input/call": Math.round(totals.input / totals.calls).toLocaleString("en-US"),
          "cached share": `${((totals.cachedRead / totals.input) * 100).toFixed(1)}%`,
          "relative cost": reference ? (totals.cost / reference).toFixed(2) : "—",
          "cost per call": (totals.cost / totals.calls).toFixed(0),
          "cache-breaking rewrites": String(totals.rewrites),
          "evidence held (bench:retention)": run.scored === 0 ? "—" : `${((run.evidence / run.scored) * 100).toFixed(1)}%`,
        };
      }),
    );
  }
  if (baseline) printNote(`No compaction's largest call: ${baseline.maxInput.toLocaleString("en-US")} tokens (under a 128k window throughout).`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { data: { type: "string" } } });
  await readmeBlock("cost", () => benchCost(values.data ? { data: values.data } : {}), { write: values.data === undefined });
}
