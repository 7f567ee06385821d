/**
 * The options every runtime shares, one rule each: the policy (when to compact, what to keep, the summary's budget),
 * the summary's wording, and the engine's (HistoryManager's) own. Each runtime's fields (runtime-fields.ts) are these
 * plus its own; its options type is checked against them (same keys), so a field cannot be added to one and not the
 * other.
 */
import { z } from "zod";
import {
  absent,
  flag,
  fn,
  integer,
  milliseconds,
  number,
  oneOf,
  ratio,
  record,
  satisfying,
  text,
  withMethods,
  type Rule,
} from "./rules.js";

/** What a token limit must be (`tokenLimit`, `hardLimit`, `--limit`, TOKEN_LIMIT): one rule, one message. */
export const TOKEN_LIMIT_RULE = "a positive number of tokens, or a fraction (0 < x <= 1) of the model's context window";
export const tokenLimit = number(TOKEN_LIMIT_RULE, { above: 0 });

/** The smallest running summary a compaction writes, in tokens. */
export const FLOOR_SUMMARY_TOKENS = 64;

export const tokens = integer(0, { says: "a non-negative integer number of tokens" });

export const MODEL_RULE =
  'a chat model, "provider:model" (e.g. "openai:gpt-4o-mini"), or a model name such as "gpt-4o"';
export const model = z.union([text(MODEL_RULE), withMethods(["invoke"], MODEL_RULE)], { error: MODEL_RULE });

export const TRIGGER_RULE =
  "{ tokens, fraction, messages } (at least one: all must hold) or a non-empty list of them (any must hold)";
export const KEEP_RULE = "{ tokens: n }, { fraction: f } (0 < f < 1 of the window) or { messages: n }, exactly one";

const setCount = (size: Record<string, unknown>) => Object.values(size).filter((value) => value !== undefined).length;

/** A trigger's figure of tokens (a share of the window is the other field). */
export const triggerTokens = number("a number of tokens > 1 (a share of the window is trigger.fraction)", {
  above: 1,
});

/** One condition of `trigger`: each field given must hold. */
export const condition = z
  .strictObject(
    {
      tokens: triggerTokens.optional(),
      fraction: number("a share of the window, 0 < f <= 1", { above: 0, to: 1 }).optional(),
      messages: integer(1).optional(),
    },
    { error: TRIGGER_RULE },
  )
  .refine((size) => setCount(size) > 0, { error: TRIGGER_RULE });

export const trigger = z.union([condition, z.array(condition, { error: TRIGGER_RULE }).min(1, TRIGGER_RULE)], {
  error: TRIGGER_RULE,
});

/** Messages kept verbatim (`keep.messages`, `planCompaction`'s `keepMessages`). */
export const keepMessages = integer(0, { says: "an integer >= 0 (the latest user turn is kept whatever it says)" });

export const keep = z
  .strictObject(
    {
      tokens: tokens.optional(),
      fraction: number("a share of the window, 0 < f < 1", { above: 0, below: 1 }).optional(),
      messages: keepMessages.optional(),
    },
    { error: KEEP_RULE },
  )
  .refine((size) => setCount(size) === 1, { error: KEEP_RULE });

/** The policy's options (`CompactionPolicyOptions`). */
export const POLICY_FIELDS = {
  tokenLimit,
  compactionRatio: ratio,
  compactionTarget: ratio,
  keepTokens: tokens,
  targetTokens: tokens,
  summaryTokens: integer(FLOOR_SUMMARY_TOKENS),
  hardLimit: z.union(
    [tokenLimit, z.strictObject({ fraction: number("a share of the window, 0 < f <= 1", { above: 0, to: 1 }) })],
    { error: `${TOKEN_LIMIT_RULE}, or { fraction } of the window` },
  ),
  recoveryRatio: ratio,
  lateness: integer(0, { says: "an integer >= 0 (turns or model calls)" }),
  model,
  contextWindow: integer(100, { says: "an integer number of tokens >= 100" }),
  trigger,
  keep,
  maxTokensBeforeSummary: triggerTokens,
  messagesToKeep: integer(0),
} as const satisfies Record<string, Rule>;

/** The summary's wording (`SummaryWording`). */
export const WORDING_FIELDS = {
  summaryPrefix: text(),
  summaryPrompt: text(),
  trimTokensToSummarize: integer(1, { says: "a positive integer number of tokens" }),
} as const satisfies Record<string, Rule>;

export const SUMMARIZER_RULE = "an object with summarize() (ExtractiveSummarizer, LlmSummarizer)";
export const summarizer = withMethods(["summarize"], SUMMARIZER_RULE);

/** A number of bytes (a cache's bound). */
export const bytes = integer(0, { says: "a non-negative integer number of bytes" });

export const ENV_RULE = "an object of environment variables, e.g. {} or the process's environment";
/** Checkpoints a prune keeps: the head always among them. */
export const keepCheckpoints = integer(1, { says: "an integer >= 1 (the head is always kept)" });

/** A Postgres text search configuration name (passed as a regconfig value). */
export const language = satisfying<string>(
  (value) => typeof value === "string" && /^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(value),
  'a Postgres text search configuration such as "simple" or "english"',
);

const RECALL_RULE = "true, false or { language, announce }";
export const recall = z.union(
  [flag, z.strictObject({ language: language.optional(), announce: flag.optional() }, { error: RECALL_RULE })],
  { error: RECALL_RULE },
);

/** `circuitBreaker` (the wrapper's, the middleware's and the node's). */
export const circuitBreaker = z.union(
  [
    z.literal(false),
    z.strictObject(
      {
        failureThreshold: integer(1).optional(),
        pauseMs: milliseconds.optional(),
        clock: fn("a function returning milliseconds").optional(),
      },
      { error: "an object { failureThreshold, pauseMs } or false" },
    ),
  ],
  { error: "an object { failureThreshold, pauseMs } or false" },
);

/** The options HistoryManager and CompactingSupervisor both take (each runtime's fields add their own). */
export const SHARED_FIELDS = {
  ...omit(POLICY_FIELDS, "targetTokens"),
  ...WORDING_FIELDS,
  summarizer,
  fallbackSummarizer: z.union([z.literal("extractive"), summarizer], {
    error: '"extractive" or an object with summarize()',
  }),
  tokenCounter: fn("a function of the messages returning their tokens (or a promise of them)"),
  pinned: fn("a function (message, index) => boolean"),
  summaryRole: oneOf(["human", "system", "ai"], '"human", "system" or "ai"'),
  summaryLog: oneOf(["rewrite", "append"], '"rewrite" or "append"'),
  summaryTimeoutMs: number("a positive number of milliseconds", { above: 0 }),
  maxWriteAttempts: integer(1),
  keepCheckpoints,
  recall,
  env: record(ENV_RULE),
  onCompactionNotice: fn(),
} as const satisfies Record<string, Rule>;

/** HistoryManager's options (`HistoryManagerOptions`; `checkpointer` is checked apart: MISSING_CHECKPOINTER). */
export const MANAGER_FIELDS = {
  ...SHARED_FIELDS,
  checkpointer: satisfying(() => true, "a LangGraph checkpoint saver"),
  policy: satisfying(
    (value) => (value as { kind?: unknown } | null)?.kind === "compaction-policy",
    "a policy made by resolvePolicy()",
  ),
  summaryModel: withMethods(["invoke"], "a LangChain chat model with invoke()"),
  counter: withMethods(["countMessages"], "a TokenCounter"),
  targetTokens: tokens,
  busyWaitMs: milliseconds,
  onUsageIgnored: fn(),
} as const satisfies Record<string, Rule>;

/** The policy's options a resolved `policy` sets: given beside it, refused. */
export const POLICY_KEYS = Object.keys(POLICY_FIELDS) as ReadonlyArray<keyof typeof POLICY_FIELDS>;

/** An option the runtime has no use for: refused, saying why. */
export function notTaken(runtime: string, why: string): Rule<undefined> {
  return absent(`left out of ${runtime}: ${why}`);
}

/** `fields` without `keys`. */
export function omit<F extends Record<string, Rule>, K extends keyof F>(fields: F, ...keys: K[]): Omit<F, K> {
  return Object.fromEntries(Object.entries(fields).filter(([key]) => !keys.includes(key as K))) as Omit<F, K>;
}
