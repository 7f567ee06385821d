/**
 * The options, one vocabulary for every runtime: langchain's summarization names where langchain has the concept
 * (`model`, `trigger`, `keep`, `tokenCounter`, `summaryPrompt`, `summaryPrefix`, `trimTokensToSummarize`, meaning
 * what they mean there), `compactionRatio` from the original design, and the few of ours that nothing else covers.
 * One zod schema: each runtime's schema extends `COMPACTION_OPTIONS`, its options type is the schema's input
 * (`z.input`), and so it has no field it refuses. The resolver (settings.ts) turns them into settings, once.
 */
import { z } from "zod";
import { integer, language, number, oneOf, ratio, satisfying, text } from "../options/rules.js";
import type { Summarizer } from "../summarizers/types.js";
import { MODEL } from "../tokens/model-option.js";
import type { TokenCounterFunction } from "./calibration.js";

export const TRIGGER_RULE =
  "{ tokens, fraction, messages } (at least one: all must hold) or a non-empty list of them (any must hold)";
export const KEEP_RULE = "{ tokens: n }, { fraction: f } (0 < f < 1 of the window) or { messages: n }, exactly one";

const setCount = (size: Record<string, unknown>) => Object.values(size).filter((value) => value !== undefined).length;

/** One condition of `trigger`: each field given must hold. */
const condition = z
  .strictObject(
    {
      /** At least this many tokens in the thread (the model's input). */
      tokens: number("a number of tokens > 1 (a share of the window is trigger.fraction)", { above: 1 }).optional(),
      /** At least this share of the model's context window. */
      fraction: number("a share of the window, 0 < f <= 1", { above: 0, to: 1 }).optional(),
      /** At least this many messages. */
      messages: integer(1).optional(),
    },
    { error: TRIGGER_RULE },
  )
  .refine((size) => setCount(size) > 0, { error: TRIGGER_RULE });

/** What stays verbatim after a compaction: exactly one field. */
const keep = z
  .strictObject(
    {
      /** The newest messages within this many tokens. */
      tokens: integer(0, { says: "a non-negative integer number of tokens" }).optional(),
      /** The newest messages within this share of the model's context window. */
      fraction: number("a share of the window, 0 < f < 1", { above: 0, below: 1 }).optional(),
      /** The newest this many messages (the latest user turn is kept whatever it says). */
      messages: integer(0, { says: "an integer >= 0 (the latest user turn is kept whatever it says)" }).optional(),
    },
    { error: KEEP_RULE },
  )
  .refine((size) => setCount(size) === 1, { error: KEEP_RULE });

const SUMMARIZER_RULE = "an object with summarize() (ExtractiveSummarizer, LlmSummarizer)";
const summarizer = satisfying<Summarizer>(
  (value) => typeof (value as { summarize?: unknown } | null)?.summarize === "function",
  SUMMARIZER_RULE,
);

/** The options every runtime takes. */
export const COMPACTION_OPTIONS = z.strictObject({
  /**
   * When to compact, as langchain's summarization says it: `{ tokens: n }`, `{ fraction: f }` of the model's context
   * window, `{ messages: n }`, an object of several (each must hold) or a list of them (any must hold).
   * @default TOKEN_LIMIT from `env` (required when that is not set, except by HistoryManager: then whenever asked)
   */
  trigger: z
    .union([condition, z.array(condition, { error: TRIGGER_RULE }).min(1, TRIGGER_RULE)], {
      error: TRIGGER_RULE,
    })
    .optional(),
  /**
   * What stays verbatim after a compaction: `{ tokens: n }`, `{ fraction: f }` of the window, or `{ messages: n }`
   * (the cut falls between whole units: a tool call with its results). @default the newest messages that fit beside
   * the summary in 80% of the trigger's tokens (with a trigger of messages only: half of them, at most 20)
   */
  keep: keep.optional(),
  /**
   * Instead of `keep`: summarize this share (0 < r < 1) of the oldest messages. @default COMPACTION_RATIO from `env`
   * when no `keep` is given, else none
   */
  compactionRatio: ratio.optional(),
  /**
   * The chat model the summaries come from, as langchain's summarization takes it: an instance, or
   * `"provider:model"` (built with langchain's `initChatModel`; the provider must be known and its package
   * installed). A bare name (`"gpt-4o"`) picks only the tokenizer and the context window. Its name picks the
   * tokenizer; its window (a chat model's `profile.maxInputTokens`, else the known model's) sizes fractions.
   * @default TOKEN_MODEL from `env`, else "gpt-4o" (the tokenizer)
   */
  model: MODEL.optional(),
  /**
   * The tokens of a list of messages as the application counts them (langchain's `tokenCounter`): every decision
   * counts with it instead of the exact tokenizer calibrated by the provider's usage figures.
   */
  tokenCounter: satisfying<TokenCounterFunction>(
    (value) => typeof value === "function",
    "a function of the messages returning their tokens (or a promise of them)",
  ).optional(),
  /**
   * The LLM summarizer's instruction (langchain's `summaryPrompt`): `{messages}` marks where the conversation goes,
   * `{budget}` the summary's budget. Needs a summarizer the library builds (`model`, or OPENAI_API_KEY in `env`).
   * @default the library's sectioned prompt
   */
  summaryPrompt: text().optional(),
  /** The text the summary message starts with (langchain's `summaryPrefix`). @default the library's header */
  summaryPrefix: text().optional(),
  /**
   * The LLM summarizer reads only the newest messages of a span within this many tokens (langchain's
   * `trimTokensToSummarize`); the rest stay in the transcript. Needs a summarizer the library builds. @default no trim
   */
  trimTokensToSummarize: integer(1, { says: "a positive integer number of tokens" }).optional(),
  /**
   * What writes the summaries: `LlmSummarizer`, `createOpenAISummarizer()` (`langgraph-compaction/openai`), the
   * offline `ExtractiveSummarizer`, or your own. @default one over `model` when it is a chat model or
   * "provider:model"; else over ChatOpenAI when `env` holds OPENAI_API_KEY; else the offline extractive one
   */
  summarizer: summarizer.optional(),
  /**
   * Writes the summary when `summarizer` fails (throws, times out, or returns an empty, oversized or error-like
   * text): `"extractive"` or a Summarizer; the report and the summary's provenance say so. @default none (a failed
   * summary writes nothing)
   */
  fallbackSummarizer: z
    .union([z.literal("extractive"), summarizer], {
      error: '"extractive" or an object with summarize()',
    })
    .optional(),
  /**
   * `"append"`: the summary is a log of segments; each compaction appends one and leaves the earlier ones as they
   * were sent, so a provider's prompt cache still serves them. `"rewrite"`: one running summary, rewritten at every
   * compaction. @default "rewrite"
   */
  summaryLog: oneOf(["rewrite", "append"], '"rewrite" or "append"').optional(),
  /**
   * Where options not given are read from, as the script reads them: TOKEN_LIMIT (`trigger.tokens`, or a fraction
   * <= 1 of the window), COMPACTION_RATIO, TOKEN_MODEL, HISTORY_SEARCH_TOOL (`recall.announce`), and OPENAI_API_KEY
   * & co. for the default summarizer. The library reads no environment of its own. @default {} (nothing is read)
   */
  env: satisfying<Record<string, string | undefined>>(
    (value) => typeof value === "object" && value !== null && !Array.isArray(value),
    "an object of environment variables, e.g. {} or the process's environment",
  ).optional(),
  /**
   * The recall index over the transcript (`searchHistory`, the `search_history` tool): `language`, the Postgres text
   * search configuration ("simple"); `announce`, whether the summary names the search_history tool (only when the
   * agents have it). @default { language: "simple", announce: HISTORY_SEARCH_TOOL from `env`, else false }
   */
  recall: z
    .strictObject(
      { language: language.optional(), announce: z.boolean({ error: "true or false" }).optional() },
      { error: "an object { language, announce }" },
    )
    .optional(),
});

/**
 * The bound on lateness (the wrapper's and the in-graph step's): how many turns (model calls, in-graph) may start with
 * the thread over its trigger while the summary is computed in the background; the next one waits for it, or
 * compacts first, whether or not the application ever yields to the event loop. 0: every one over the trigger
 * waits. @default 2
 */
export const lateness = integer(0, { says: "an integer >= 0 (turns or model calls)" });

/** Checkpoints a prune keeps: the head always among them. */
/** The checkpoints `pruneThread` keeps when not told (the head among them). */
export const DEFAULT_KEEP_CHECKPOINTS = 3;

export const keepCheckpoints = integer(1, { says: "an integer >= 1 (the head is always kept)" });

export type CompactionOptions = z.input<typeof COMPACTION_OPTIONS>;
/** What `trigger` takes: one condition, or a list of them. */
export type TriggerOption = NonNullable<CompactionOptions["trigger"]>;
/** One condition of `trigger`, or what `keep` takes. */
export interface ContextSize {
  tokens?: number;
  fraction?: number;
  messages?: number;
}
export type RecallOptions = NonNullable<CompactionOptions["recall"]>;
/** `"rewrite"`: one running summary, rewritten at every compaction. `"append"`: a log of segments (summary-log.ts). */
export type SummaryLog = NonNullable<CompactionOptions["summaryLog"]>;
