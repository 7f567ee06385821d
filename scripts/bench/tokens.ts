/**
 * Token-counting benchmark: cold throughput of the shipped engine beside plain js-tiktoken, gpt-tokenizer and
 * tiktoken (WASM) on the same text, the warm per-turn count, and pathological inputs. Run: npm run bench:tokens
 */
import "../../src/store/all-backends.js";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { createRequire } from "node:module";
import { countMessageTokens } from "../../src/tokens/chat-format.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { generateHistory } from "../workload/history.js";
import { pathologicalInputs } from "../workload/text.js";
import { median, percentile, printNote, printTable, time } from "./table.js";
import { AIMessage } from "@langchain/core/messages";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { Calibration } from "../../src/engine/calibration.js";
import { DEFAULT_DATA } from "./retention.js";
import { loadDialogues } from "./retention/dataset.js";
import { readmeBlock } from "./readme-block.js";

const require = createRequire(import.meta.url);

function textsOf(messages: readonly BaseMessage[]): string[] {
  const texts: string[] = [];
  for (const message of messages) countMessageTokens(message, (text) => (texts.push(text), 0));
  return texts;
}

function bytes(texts: readonly string[]): number {
  return texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
}

export async function benchTokens(): Promise<void> {
  // 2,000 messages, ~208k tokens: prose, JSON tool results, code, logs, some CJK.
  const history = generateHistory({ seed: 7, messages: 2_000, bulk: 2.5 });
  const texts = textsOf(history);
  const megabytes = bytes(texts) / 1e6;

  const { Tiktoken } = require("js-tiktoken/lite") as typeof import("js-tiktoken/lite");
  const o200k = require("js-tiktoken/ranks/o200k_base");
  const { get_encoding } = require("tiktoken") as typeof import("tiktoken");
  const gpt = require("gpt-tokenizer/encoding/o200k_base") as typeof import("gpt-tokenizer/encoding/o200k_base");

  const inits = {
    "js-tiktoken": time(() => new Tiktoken(o200k.default ?? o200k)),
    tiktoken: time(() => get_encoding("o200k_base")),
    "gpt-tokenizer": time(() => gpt.countTokens("warm up")),
    shipped: time(() => new TokenCounter({ model: "gpt-4o" }).countText("warm up")),
  };
  const jsTiktoken = inits["js-tiktoken"].result;
  const wasm = inits.tiktoken.result;
  const asText = { disallowedSpecial: new Set<string>() };

  const shipped = new TokenCounter({ model: "gpt-4o" });
  const engines: Record<string, (text: string) => number> = {
    "js-tiktoken (plain)": (text) => jsTiktoken.encode(text, [], []).length,
    "tiktoken WASM (plain)": (text) => wasm.encode(text, [], []).length,
    "gpt-tokenizer (plain)": (text) => gpt.countTokens(text, asText),
    "shipped engine: TokenCounter.countText": (text) => shipped.countText(text),
  };
  // Interleaved rounds, best of 7 per engine, so machine noise hits every engine alike.
  const best: Record<string, number> = {};
  const totals: Record<string, number> = {};
  for (let round = 0; round < 7; round++) {
    for (const [name, count] of Object.entries(engines)) {
      if (round >= 3 && name.startsWith("js-tiktoken")) continue; // slow; 3 rounds are plenty
      const run = time(() => texts.reduce((sum, text) => sum + count(text), 0));
      best[name] = Math.min(best[name] ?? Infinity, run.ms);
      totals[name] = run.result;
    }
    const run = time(() => new TokenCounter({ model: "gpt-4o" }).countMessages(history));
    best.messages = Math.min(best.messages ?? Infinity, run.ms);
    totals.messages = run.result;
  }
  const rows: Array<Record<string, string | number>> = Object.keys(engines).map((name) => ({
    engine: name,
    "text tokens": totals[name]!,
    "best ms": best[name]!.toFixed(1),
    "MB/s": (megabytes / (best[name]! / 1000)).toFixed(2),
  }));
  rows.push({
    engine: "shipped: countMessages, cold cache (incl. cache bookkeeping)",
    "text tokens": `${totals.messages} (request)`,
    "best ms": best.messages!.toFixed(1),
    "MB/s": (megabytes / (best.messages! / 1000)).toFixed(2),
  });
  const reference = totals["gpt-tokenizer (plain)"];
  const identical = Object.keys(engines).every((name) => totals[name] === reference);
  printTable(
    `Cold count of a 2,000-message history (${megabytes.toFixed(2)} MB of text); identical text counts across engines: ${identical ? "yes" : "NO"}`,
    rows,
  );
  printTable(
    "Encoder start-up (first use in this process)",
    Object.entries(inits).map(([engine, run]) => ({ engine, ms: run.ms.toFixed(0) })),
  );

  // Warm: the thread after one more turn, counted with a warm cache (objects as a running graph returns them),
  // and after a checkpoint reload: the thread serialized and read back by LangGraph's own serializer (new objects,
  // new strings, same ids), as every turn of a graph with a checkpointer starts; only the count is timed.
  const counter = new TokenCounter({ model: "gpt-4o" });
  counter.countMessages(history);
  const serde = new JsonPlusSerializer();
  const warm: number[] = [];
  const reloaded: number[] = [];
  let thread = history;
  for (let turn = 0; turn < 50; turn++) {
    thread = [
      ...thread,
      new HumanMessage({ id: `turn-${turn}`, content: `Turn ${turn}: what changed in invoice ${turn * 37}?` }),
    ];
    warm.push(time(() => counter.countMessages(thread)).ms);
  }
  for (let turn = 0; turn < 30; turn++) {
    const [type, bytes] = await serde.dumpsTyped(thread);
    const loaded = (await serde.loadsTyped(type, bytes)) as BaseMessage[];
    const next = [
      ...loaded,
      new HumanMessage({ id: `reload-${turn}`, content: `Reloaded turn ${turn}: and invoice ${turn * 41}?` }),
    ];
    reloaded.push(time(() => counter.countMessages(next)).ms);
    thread = next;
  }
  printTable(
    `Warm count of the thread plus one new message (${thread.length.toLocaleString("en")} messages; target after a reload: <= 1 ms)`,
    [
      {
        case: "same objects (in-process graph), 50 turns",
        "median ms": median(warm).toFixed(3),
        "max ms": Math.max(...warm).toFixed(3),
      },
      {
        case: "after a checkpoint reload (serde round trip), 30 turns",
        "median ms": median(reloaded).toFixed(3),
        "max ms": Math.max(...reloaded).toFixed(3),
      },
    ],
  );

  const pathological: Array<Record<string, string | number>> = [];
  for (const size of [10_000, 100_000, 1_000_000]) {
    for (const [name, text] of Object.entries(pathologicalInputs(size))) {
      const run = time(() => shipped.countText(text));
      const row: Record<string, string | number> = {
        input: name,
        size: size.toLocaleString("en"),
        tokens: run.result,
        "shipped ms": run.ms.toFixed(1),
      };
      if (size === 10_000) {
        const exact = time(() => gpt.countTokens(text, asText));
        row["plain gpt-tokenizer ms"] = exact.ms.toFixed(1);
        row["error vs exact"] = `${(((run.result - exact.result) / exact.result) * 100).toFixed(2)}%`;
      }
      pathological.push(row);
    }
  }
  printTable("Pathological inputs (shipped engine; plain gpt-tokenizer at 10 KB for contrast)", pathological);
  benchCalibration();
}

/**
 * The calibrated count against a provider's own figure (engine/calibration.ts), over the retention conversations
 * replayed as calls: speaker A asks, speaker B is the model, whose every reply carries the scripted provider's count
 * of the call's input. Two providers the library's tokenizer (o200k) does not match: cl100k × 1.22, and characters /
 * 3.5 + 4 per message (a stand-in for a non-BPE tokenizer). Error from the third call on, against the provider's count
 * of the next call's input; and what calibrating adds to a count of the same context (warm, as a runtime counts).
 */
export function benchCalibration(): void {
  const path = resolve(DEFAULT_DATA);
  if (!existsSync(path)) {
    printNote(`Calibration: no conversation file at ${path} (the retention data); the row is left out.`);
    return;
  }
  const dialogues = loadDialogues(path);
  const cl100k = new TokenCounter({ model: "gpt-4" });
  const providers: Array<[string, (messages: readonly BaseMessage[]) => number]> = [
    ["cl100k_base × 1.22", (messages) => Math.round(cl100k.countMessages(messages) * 1.22)],
    [
      "characters / 3.5 + 4 per message",
      (messages) => Math.round(messages.reduce((sum, message) => sum + message.text.length / 3.5 + 4, 0)),
    ],
  ];
  const rows: Array<Record<string, string>> = [];
  for (const [name, provider] of providers) {
    const counter = new TokenCounter({ model: "gpt-4o" });
    const calibration = new Calibration(counter);
    const calibrated: number[] = [];
    const tokenizer: number[] = [];
    const added: number[] = [];
    const addedUs: number[] = [];
    let countTotal = 0;
    let measureTotal = 0;
    for (const dialogue of dialogues) {
      const messages: BaseMessage[] = [];
      let calls = 0;
      for (const turn of dialogue.turns) {
        if (turn.speaker !== dialogue.speakerB) {
          messages.push(new HumanMessage({ id: turn.id, content: turn.text }));
          continue;
        }
        // The context before this call, as the provider will count it, against the library's two counts of it.
        const truth = provider(messages);
        // Both timed warm, as a runtime counts a thread it counted a turn ago (the new message encoded first).
        const plain = counter.countMessages(messages);
        const measured = calibration.measure(messages).tokens;
        // Timed in repetitions, the two interleaved (one warm count is microseconds); each the fastest of 7 rounds,
        // so a collection or a tick of another process in one round does not count as the cost of either.
        let countMs = Infinity;
        let measureMs = Infinity;
        for (let round = 0; round < 7; round++) {
          let started = performance.now();
          for (let i = 0; i < 50; i++) counter.countMessages(messages);
          countMs = Math.min(countMs, performance.now() - started);
          started = performance.now();
          for (let i = 0; i < 50; i++) calibration.measure(messages);
          measureMs = Math.min(measureMs, performance.now() - started);
        }
        added.push((measureMs - countMs) / countMs);
        countTotal += countMs;
        measureTotal += measureMs;
        addedUs.push(((measureMs - countMs) / 50) * 1000);
        if (calls >= 2) {
          calibrated.push(Math.abs(measured - truth) / truth);
          tokenizer.push(Math.abs(plain - truth) / truth);
        }
        calls++;
        messages.push(
          new AIMessage({
            id: turn.id,
            content: turn.text,
            usage_metadata: { input_tokens: truth, output_tokens: 0, total_tokens: truth },
            response_metadata: { model_name: "provider" },
          }),
        );
      }
    }
    const pct = (values: number[], p: number) => `${(percentile(values, p) * 100).toFixed(2)}%`;
    rows.push({
      provider: name,
      calls: String(calibrated.length),
      "calibrated error p50 / p95": `${pct(calibrated, 0.5)} / ${pct(calibrated, 0.95)}`,
      "tokenizer alone p50 / p95": `${pct(tokenizer, 0.5)} / ${pct(tokenizer, 0.95)}`,
      "calibrating adds, all calls (target <= 5%)": `${(((measureTotal - countTotal) / countTotal) * 100).toFixed(2)}% of the counts' time`,
      "per call, p50 / p95": `${pct(added, 0.5)} / ${pct(added, 0.95)} of its warm count; ${percentile(addedUs, 0.5).toFixed(2)} / ${percentile(addedUs, 0.95).toFixed(2)} µs`,
    });
  }
  printTable(
    `Calibrated counts against a provider's own figure: ${dialogues.length} retention conversations replayed as calls, from the third call on (engine/calibration.ts)`,
    rows,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await readmeBlock("tokens", () => benchTokens());
}
