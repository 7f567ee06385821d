/**
 * One option schema: the same bad value of an option, given to the wrapper, the middleware, the node, the worker and
 * `HistoryManager` — and, for the options the script has a flag for, to the script — is refused with the same code
 * and the same rule, naming the option as the user spelled it and the value as it was given. Each option has one
 * rule in one place (engine/policy.ts, engine/model-option.ts, engine/manager-options.ts, engine/prune.ts), whatever
 * the runtime.
 */
import { HumanMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CompactionError } from "../../src/errors.js";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { main } from "../../src/cli/main.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { compactionNode } from "../../src/runtimes/in-graph/compaction-node.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { CompactionWorker } from "../../src/runtimes/worker/compaction-worker.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createStore, type TestStore } from "../support/savers.js";

let store: TestStore;
let graph: ReturnType<typeof createReactAgent>;
beforeAll(async () => {
  store = await createStore("sqlite");
  graph = createReactAgent({
    llm: new ScriptedChatModel({ reply: () => ({ content: "Noted." }) }),
    tools: [],
    checkpointer: store.saver,
  });
  await graph.invoke(
    { messages: [new HumanMessage("The invoice total is 4,200 EUR.")] },
    { configurable: { thread_id: "stored" } },
  );
});
afterAll(async () => await store.close());

type Options = Record<string, unknown>;

/** A chat model whose profile states its input window, as langchain's provider models do. */
class ProfiledModel extends ScriptedChatModel {
  override get profile() {
    return { maxInputTokens: 8_192 };
  }
}
const BASE = { trigger: { tokens: 1_000 } };

/** Every runtime, built with `options` on top of a valid limit. */
const RUNTIMES: Record<string, (options: Options) => unknown> = {
  wrapper: (options) => new CompactingSupervisor(graph, { ...BASE, ...options }),
  middleware: (options) => compactionMiddleware({ ...BASE, ...options }),
  node: (options) => compactionNode({ ...BASE, ...options }),
  worker: (options) => new CompactionWorker(store.saver, { ...BASE, ...options }),
  HistoryManager: (options) => new HistoryManager({ checkpointer: store.saver, ...BASE, ...options }),
};

/** Bad values of the options every runtime takes. */
const SHARED: Array<[string, unknown]> = [
  ["trigger", { tokens: -1 }],
  ["trigger", "x"],
  ["trigger", { tokens: 0.5 }],
  ["compactionRatio", 1.5],
  ["compactionRatio", 0],
  ["model", ""],
  ["model", 5],
  ["summarizer", {}],
  ["fallbackSummarizer", "abstractive"],
  ["recall", "yes"],
  ["recall", { announce: "no" }],
  ["summaryLog", "log"],
  ["env", 5],
  ["trigger", { messages: 3 }],
  ["keep", {}],
  ["keep", { messages: -1 }],
  ["tokenCounter", "words"],
  ["trigger", [{ messages: 8 }, {}]],
  ["summaryPrefix", ""],
  ["summaryPrefix", 5],
  ["summaryPrompt", " "],
  ["trimTokensToSummarize", 0],
  ["trimTokensToSummarize", 1.5],
];

/** Options only some runtimes take, with the runtimes that take them. */
const PARTIAL: Array<[string, unknown, string[]]> = [
  ["keepCheckpoints", 0, ["wrapper", "worker", "HistoryManager"]],
  ["keepCheckpoints", 1.5, ["wrapper", "worker", "HistoryManager"]],
  ["background", "yes", ["wrapper", "middleware", "node"]],
  ["lateness", -1, ["wrapper", "middleware", "node"]],
  ["lateness", 0.5, ["wrapper", "middleware", "node"]],
];

/** Options a runtime has no use for: not in its type, refused by it as an option it does not know. */
const NOT_TAKEN: Array<[string, unknown, string[]]> = [
  ["keepCheckpoints", 3, ["middleware", "node"]],
  ["background", true, ["worker", "HistoryManager"]],
  ["lateness", 1, ["worker", "HistoryManager"]],
  ["strategy", {}, ["middleware", "node", "worker", "HistoryManager"]],
];

/** Spellings removed for one vocabulary (never deprecated: nothing was released): unknown to every runtime. */
const REMOVED = [
  "tokenLimit",
  "compactionTarget",
  "keepTokens",
  "targetTokens",
  "summaryTokens",
  "hardLimit",
  "recoveryRatio",
  "contextWindow",
  "maxTokensBeforeSummary",
  "messagesToKeep",
  "summaryModel",
  "counter",
  "policy",
  "pinned",
  "summaryRole",
  "summaryTimeoutMs",
  "maxWriteAttempts",
  "busyWaitMs",
  "circuitBreaker",
  "onCompactionOutcome",
  "maxThreads",
  "cacheBytes",
  "onCompactionNotice",
  "onSummaryReady",
  "onArchive",
];

/** The script's flag for an option, and the values a user would type for the bad values above. */
const FLAGS: Array<[string, string, string]> = [
  ["compactionRatio", "--ratio", "1.5"],
  ["compactionRatio", "--ratio", "0"],
  ["model", "--model", ""],
  ["keepCheckpoints", "--keep", "0"],
  ["keepCheckpoints", "--keep", "1.5"],
];

interface Refusal {
  code: string;
  parameter: string;
  rule: string;
  value: string;
}

/** An INVALID_ARGUMENT message read as its parts: `<parameter> must be <rule>; got <value>.` */
function refusal(error: unknown): Refusal {
  expect(CompactionError.isInstance(error), String(error)).toBe(true);
  const { code, message } = error as CompactionError;
  const parts = /^(\S+) must be (.+); got (.+)\.$/.exec(message);
  expect(parts, message).not.toBeNull();
  return { code, parameter: parts![1]!, rule: parts![2]!, value: parts![3]! };
}

function refusalOf(make: (options: Options) => unknown, options: Options): Refusal {
  try {
    make(options);
  } catch (error) {
    return refusal(error);
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
}

/** The value as an error names it: JSON, as typed. */
const named = (value: unknown) =>
  typeof value === "number" && !Number.isFinite(value) ? String(value) : JSON.stringify(value);

/** Every runtime's refusal is the first one's; it names the option (or its field) and, for a plain value, the value. */
function expectOneRefusal(option: string, value: unknown, runtimes: string[]): void {
  const refusals = runtimes.map((runtime) => ({ runtime, ...refusalOf(RUNTIMES[runtime]!, { [option]: value }) }));
  const { runtime: _, ...first } = refusals[0]!;
  expect(first.code).toBe("INVALID_ARGUMENT");
  expect(new RegExp(`^${option}([.[]|$)`).test(first.parameter), first.parameter).toBe(true);
  if (typeof value !== "object" || value === null) expect(first.value).toBe(named(value));
  for (const { runtime, ...said } of refusals) expect({ runtime, ...said }).toEqual({ runtime, ...first });
}

/** Each runtime's resolved policy, built with `options` (no tokenLimit of its own). */
const POLICIES: Record<string, (options: Options) => { tokenLimit?: number; cut: unknown; model: string }> = {
  wrapper: (options) => new CompactingSupervisor(graph, options).policy,
  middleware: (options) => compactionMiddleware(options).policy,
  node: (options) => compactionNode(options).policy,
  worker: (options) => new CompactionWorker(store.saver, options).policy,
  HistoryManager: (options) => new HistoryManager({ checkpointer: store.saver, ...options }).policy,
};

describe("the summarizer's wording", () => {
  it.each([
    ["summaryPrompt", "Summarize: {messages}"],
    ["trimTokensToSummarize", 2_000],
  ])(
    "%s shapes only a summarizer the library builds: refused by every runtime beside the offline one and a given one",
    (option, value) => {
      expectOneRefusal(option, value, Object.keys(RUNTIMES));
      const given = { summarize: async () => "summary" };
      const refusals = Object.keys(RUNTIMES).map((runtime) =>
        refusalOf(RUNTIMES[runtime]!, { [option]: value, summarizer: given }),
      );
      for (const said of refusals) expect(said).toEqual(refusals[0]);
      expect(refusals[0]!.rule).toMatch(/the given summarizer has no prompt/);
    },
  );

  it.each([
    ["summaryPrompt", "Summarize: {messages}"],
    ["trimTokensToSummarize", 2_000],
  ])("%s is taken by every runtime with a chat model as model", (option, value) => {
    const model = new ScriptedChatModel({ reply: () => ({ content: "summary" }) });
    for (const make of Object.values(RUNTIMES)) expect(() => make({ [option]: value, model })).not.toThrow();
  });
});

describe("env means one thing on every runtime", () => {
  it.each<[string, Options, { tokenLimit: number; cut?: unknown; model?: string; triggers?: unknown }]>([
    ["TOKEN_LIMIT", { env: { TOKEN_LIMIT: "1000" } }, { tokenLimit: 1_000 }],
    ["TOKEN_LIMIT as a fraction of the window", { env: { TOKEN_LIMIT: "0.5" } }, { tokenLimit: 64_000 }],
    [
      "COMPACTION_RATIO",
      { env: { TOKEN_LIMIT: "1000", COMPACTION_RATIO: "0.7" } },
      { tokenLimit: 1_000, cut: { by: "ratio", ratio: 0.7 } },
    ],
    ["TOKEN_MODEL", { env: { TOKEN_LIMIT: "1000", TOKEN_MODEL: "gpt-4" } }, { tokenLimit: 1_000, model: "gpt-4" }],
    [
      "an option in code wins over env",
      { trigger: { tokens: 2_000 }, env: { TOKEN_LIMIT: "1000" } },
      { tokenLimit: 2_000 },
    ],
    [
      "a trigger of conditions",
      { trigger: [{ messages: 8 }, { tokens: 3_000, messages: 6 }] },
      {
        tokenLimit: 115_200,
        cut: { by: "messages", messages: 4 },
        triggers: [{ messages: 8 }, { tokens: 3_000, messages: 6 }],
      },
    ],
    [
      "a fraction of the chat model's profile window",
      { model: new ProfiledModel({ reply: () => ({ content: "ok" }) }), trigger: { fraction: 0.5 } },
      { tokenLimit: 4_096 },
    ],
    [
      "a cut in code wins over COMPACTION_RATIO",
      { keep: { tokens: 500 }, env: { TOKEN_LIMIT: "1000", COMPACTION_RATIO: "0.7" } },
      { tokenLimit: 1_000, cut: { by: "keep", tokens: 500 } },
    ],
  ])("%s: every runtime resolves the same policy", (_, options, expected) => {
    for (const [runtime, resolve] of Object.entries(POLICIES))
      expect({ runtime, ...resolve(options) }).toMatchObject({ runtime, ...expected });
  });

  it("a bad TOKEN_LIMIT is refused by every runtime, naming the variable", () => {
    const refusals = Object.entries(POLICIES).map(([runtime, resolve]) => ({
      runtime,
      ...refusalOf(resolve, { env: { TOKEN_LIMIT: "lots" } }),
    }));
    for (const { runtime, ...said } of refusals)
      expect({ runtime, ...said }).toMatchObject({
        runtime,
        code: "INVALID_ARGUMENT",
        parameter: "TOKEN_LIMIT",
        value: '"lots"',
      });
  });
});

describe("one option schema", () => {
  it.each(SHARED)("%s = %j: the same code and message from every runtime", (option, value) => {
    expectOneRefusal(option, value, Object.keys(RUNTIMES));
  });

  it.each(PARTIAL)("%s = %j: the same code and message from every runtime that takes it", (option, value, runtimes) => {
    expectOneRefusal(option, value, runtimes);
  });

  it.each(NOT_TAKEN)(
    "%s = %j: refused by each runtime that has no use for it, as an option it does not know",
    (option, value, runtimes) => {
      for (const runtime of runtimes)
        expect(() => RUNTIMES[runtime]!({ [option]: value }), runtime).toThrow(
          new RegExp(`^no option "${option}" in `),
        );
    },
  );

  it.each(REMOVED)("%s: a removed spelling, unknown to every runtime", (option) => {
    for (const [runtime, build] of Object.entries(RUNTIMES))
      expect(() => build({ [option]: 1 }), runtime).toThrow(new RegExp(`^no option "${option}" in `));
  });

  it.each(FLAGS)("the script's flag for %s (%s %j): the rule the runtimes give", async (option, flag, typed) => {
    const lines: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (lines.push(String(chunk)), true));
    let code: number;
    try {
      const command = option === "keepCheckpoints" ? ["prune", "stored"] : ["inspect", "stored"];
      code = await main([...command, "--db", store.location.path!, `${flag}=${typed}`], {});
    } finally {
      write.mockRestore();
    }
    expect(code, lines.join("")).toBe(2);
    const line = lines
      .join("")
      .trim()
      .replace(/^compact-thread: /, "");
    const parts = /^(\S+) must be (.+); got (.+)\.$/.exec(line);
    expect(parts, line).not.toBeNull();
    const [, parameter, rule, value] = parts!;
    // The runtimes' rule for the value the flag spells (a number where it spells one).
    const spelled = typed.trim() !== "" && Number.isFinite(Number(typed)) ? Number(typed) : typed;
    const runtime = option === "keepCheckpoints" ? RUNTIMES.wrapper! : RUNTIMES.middleware!;
    expect({ parameter, rule }).toEqual({ parameter: flag, rule: refusalOf(runtime, { [option]: spelled }).rule });
    // The value as typed, or the number it spells.
    expect([JSON.stringify(typed), named(spelled)]).toContain(value);
  });

  it("--limit 0.5 and TOKEN_LIMIT=0.5 mean the same limit: half of the model's window", async () => {
    const limitOf = async (args: string[], env: Record<string, string>) => {
      const lines: string[] = [];
      const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (lines.push(String(chunk)), true));
      try {
        expect(await main(["inspect", "stored", "--db", store.location.path!, "--json", ...args], env)).toBe(0);
      } finally {
        write.mockRestore();
      }
      return (JSON.parse(lines.join("")) as { limit: number }).limit;
    };
    const flag = await limitOf(["--limit", "0.5"], {});
    expect(flag).toBe(64_000);
    expect(await limitOf([], { TOKEN_LIMIT: "0.5" })).toBe(flag);
  });
});

describe("an option a runtime does not know (a misspelling, another runtime's option) is refused by name", () => {
  const misspelt: Array<[string, unknown, string]> = [
    ["triggr", { tokens: 2_000 }, "trigger"],
    ["summaryPrefx", "Earlier:", "summaryPrefix"],
    ["triger", { tokens: 2_000 }, "trigger"],
  ];
  for (const [runtime, build] of Object.entries(RUNTIMES)) {
    for (const [key, value, near] of misspelt) {
      it(`${runtime}: ${key}`, () => {
        let thrown: unknown;
        try {
          build({ [key]: value });
        } catch (error) {
          thrown = error;
        }
        expect(CompactionError.isInstance(thrown) && thrown.code).toBe("INVALID_ARGUMENT");
        expect((thrown as Error).message).toMatch(
          new RegExp(`no option "${key}" in .* \\(did you mean "${near}"\\?\\)`),
        );
      });
    }
  }
  it("names the runtime, and takes an option given as undefined (a spread of an optional setting)", () => {
    expect(() => RUNTIMES.wrapper!({ counter: {} })).toThrow(/no option "counter" in CompactingSupervisor/);
    expect(() => RUNTIMES.worker!({ idleMs: 0, onProgress: () => undefined })).toThrow(
      /no option "onProgress" in CompactionWorker/,
    );
    expect(() => RUNTIMES.middleware!({ pollMs: 10 })).toThrow(/no option "pollMs" in the middleware and the node/);
    expect(() => RUNTIMES.wrapper!({ triggr: undefined })).not.toThrow();
  });
});
