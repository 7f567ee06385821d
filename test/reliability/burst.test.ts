/**
 * A burst: many threads cross the limit at once in one wrapper (their turns 16 at a time), with the defaults. Every
 * one is compacted and no compaction fails: every summary prepared is held until it is applied. 200 threads in
 * `npm run test:reliability`, 64 in `npm test`.
 */
import { HumanMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { createTestAgent, seedTurns } from "../support/agents.js";
import { createStore, type TestStore } from "../support/savers.js";
import { size } from "../support/reliability.js";

const THREADS = size("BURST_THREADS", 64, 200);
const AT_ONCE = 16;
let store: TestStore;

beforeAll(async () => {
  store = await createStore("sqlite");
  const { agent } = createTestAgent(store.saver);
  // Each thread ~1,380 tokens: one more turn takes it over the limit of 1,400.
  for (let thread = 0; thread < THREADS; thread++) await seedTurns(agent, `burst-${thread}`, 20);
});
afterAll(async () => await store.close());

it(`${THREADS} threads over the limit at once: every one compacted, no error`, async () => {
  const { agent } = createTestAgent(store.saver);
  const landed = new Set<string>();
  const errors: unknown[] = [];
  const supervisor = new CompactingSupervisor(agent, {
    trigger: { tokens: 1_400 },
    env: {},
    onCompaction: (report) => void landed.add(report.threadId),
    onCompactionError: (error) => void errors.push(error),
  });
  let next = 0;
  const lane = async () => {
    while (next < THREADS) {
      const thread = next++;
      await supervisor.invoke(
        {
          messages: [
            new HumanMessage(`turn 20: the invoice total for order ord_1020 is 340 EUR, decided by Alice Moreau.`),
          ],
        },
        { configurable: { thread_id: `burst-${thread}` } },
      );
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, lane));
  await supervisor.flush();
  await supervisor.close();
  expect(errors).toEqual([]);
  expect(landed.size).toBe(THREADS);
});
