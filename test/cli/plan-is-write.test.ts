/**
 * The script shows what it will write: `compact --dry-run` prints the plan the engine then writes (the same kept
 * messages, the token estimate within 5% of what is written), and a `--ratio` the limit overrides is said.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { createTestAgent, runTurns } from "../support/agents.js";
import { runScript } from "../support/run-script.js";
import { seedHead } from "../../scripts/workload/seed-head.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";

let dir: string;
let db: string;
/** Over the limit only as its provider counts it (1.3× the tokenizer): the script must count as the engine does. */
let calibratedLimit: number;

/** 20 turns whose replies carry a provider's figure, 1.3× what the tokenizer counts of each call's input. */
function providerCounted(): BaseMessage[] {
  const counter = new TokenCounter();
  const messages: BaseMessage[] = [];
  for (let turn = 0; turn < 20; turn++) {
    messages.push(
      new HumanMessage({
        id: `q${turn}`,
        content: `Turn ${turn}: where is parcel PX-${700 + turn}, who cleared it at customs in Lisbon, and what did the VAT come to?`,
      }),
    );
    const input = Math.round(counter.countMessages(messages) * 1.3);
    messages.push(
      new AIMessage({
        id: `a${turn}`,
        content: `Parcel PX-${700 + turn} cleared customs in Lisbon on day ${turn}; VAT ${40 + turn} EUR.`,
        usage_metadata: { input_tokens: input, output_tokens: 20, total_tokens: input + 20 },
      }),
    );
  }
  calibratedLimit = Math.floor(counter.countMessages(messages) * 1.15);
  return messages;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "compaction-plan-"));
  db = join(dir, "plan.sqlite");
  const saver = SqliteSaver.fromConnString(db);
  const { agent } = createTestAgent(saver);
  // ~20 turns, ~1,380 tokens (test/support/agents.ts).
  for (const thread of ["ratio", "plain"]) await runTurns(agent, thread, 20);
  await seedHead(saver, "calibrated", providerCounted());
  saver.db.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function keptAfterWrite(thread: string): Promise<{ kept: Array<string | undefined>; messages: BaseMessage[] }> {
  const saver = SqliteSaver.fromConnString(db);
  const messages = (await threadStoreFor(saver).readHead(thread))!.messages;
  saver.db.close();
  return { kept: messages.filter((message) => !isSummaryMessage(message)).map((message) => message.id), messages };
}

describe("compact prints the plan it writes", () => {
  for (const [thread, flags] of [
    ["ratio", () => ["--limit", "500", "--ratio", "0.5"]],
    ["plain", () => ["--limit", "1000"]],
    ["calibrated", () => ["--limit", String(calibratedLimit)]],
  ] as const) {
    it(`${thread}: the dry run's kept messages and estimate are what the write leaves`, async () => {
      const dry = await runScript(["compact", thread, "--db", db, "--dry-run", "--json", ...flags()]);
      expect(dry.code, dry.stderr).toBe(0);
      const planned = JSON.parse(dry.stdout);
      expect(planned.status).toBe("dry-run");
      const written = await runScript(["compact", thread, "--db", db, "--json", ...flags()]);
      expect(written.code, written.stderr).toBe(0);
      const report = JSON.parse(written.stdout).report;
      expect(report.status).toBe("compacted");
      const after = await keptAfterWrite(thread);
      expect(after.kept).toEqual(planned.plan.keep.ids);
      expect(Math.abs(planned.plan.tokens.afterEstimate - report.tokensAfter)).toBeLessThanOrEqual(
        report.tokensAfter * 0.05,
      );
      if (thread === "ratio") expect(planned.ratioOverridden).toMatchObject({ ratio: 0.5 });
      else expect(planned.ratioOverridden).toBeUndefined();
    });
  }

  it("says when the limit overrides --ratio, in the plan a person reads", async () => {
    const saver = SqliteSaver.fromConnString(db);
    const { agent } = createTestAgent(saver);
    await runTurns(agent, "readable", 20);
    saver.db.close();
    const human = await runScript(["compact", "readable", "--db", db, "--dry-run", "--limit", "500", "--ratio", "0.5"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      /--ratio 0\.5 would keep \d+ messages and end at ~[\d,]+ tokens, above the ceiling of 450: the limit wins/,
    );
  });
});
