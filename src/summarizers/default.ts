import { TokenCounter } from "../tokens/token-counter.js";
import { ExtractiveSummarizer } from "./extractive.js";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { DEFAULT_SUMMARY_MODEL, LlmSummarizer, type LlmSummarizerOptions } from "./llm.js";
import { refuseForeignWording, type SummaryWording } from "./wording.js";
import { createOpenAISummarizer } from "./openai.js";
import type { Summarizer } from "./types.js";
import {
  importOptional,
  isInstalled,
  isInstalledPackage,
  missingDependency,
  requireAllInstalled,
  requireModule,
} from "../optional-dependency.js";
import { argument } from "../options/check.js";
import { never } from "../options/rules.js";

/** The code of the warning for a key without the package. */
export const NO_OPENAI_PACKAGE_WARNING = "LANGGRAPH_COMPACTION_NO_OPENAI";
let warned = false;

function warnOnce(): void {
  if (warned) return;
  warned = true;
  process.emitWarning(
    "OPENAI_API_KEY is set but @langchain/openai is not installed: compaction summarizes with the offline ExtractiveSummarizer. Run npm install @langchain/openai to summarize with OpenAI, or pass a summarizer.",
    { code: NO_OPENAI_PACKAGE_WARNING },
  );
}

/** How the summarizer compactions use was chosen (the wrapper's `summarizerChoice` and `compactionHealth`). */
export interface SummarizerChoice {
  /** "given": the application passed it; "model": built over the `model` option; the others: the default, from the environment. */
  source: "given" | "model" | "openai" | "offline" | "offline-no-package";
  /** Its name and model, as its summaries' provenance records them. */
  name: string;
  model?: string;
  /** One sentence for a log: which summarizer, and why. */
  reason: string;
}

/**
 * The summarizer used when none is given: an `LlmSummarizer` over `ChatOpenAI` when `env` (nothing unless the caller
 * passes it: the library reads no environment of its own) holds `OPENAI_API_KEY` (model `SUMMARY_MODEL`, default
 * gpt-4o-mini; `OPENAI_BASE_URL` for any compatible server), otherwise the offline `ExtractiveSummarizer`. With the key set but `@langchain/openai` not installed, the offline one, and a process
 * warning (once) saying so: a missing package never stops compaction.
 */
export function createDefaultSummarizer(
  options: { env?: Record<string, string | undefined>; counter?: TokenCounter } = {},
): Summarizer {
  return chooseSummarizer(undefined, options).summarizer;
}

/**
 * The summarizer the `model` option asks for, as langchain's summarization takes it: an `LlmSummarizer` over a chat
 * model, or over `"provider:model"` built with langchain's `initChatModel` on the first summary (the `langchain`
 * package, loaded then). Undefined for a bare name (it picks only the tokenizer) or no model.
 */
export function summarizerForModel(model: unknown, shape: Shape = {}): Summarizer | undefined {
  if (typeof model === "object" && model !== null && typeof (model as { invoke?: unknown }).invoke === "function")
    return new LlmSummarizer({ ...shape, model: model as BaseChatModel });
  // A name with a colon is "provider:model" (an OpenAI fine-tune's "ft:…" is a name).
  if (typeof model !== "string" || !model.includes(":") || model.startsWith("ft:")) return undefined;
  checkProvider(model);
  return new LlmSummarizer({
    ...shape,
    modelName: model,
    loadModel: async () => {
      const { initChatModel } = await importOptional(
        "langchain",
        `model: ${JSON.stringify(model)}`,
        () => import("langchain"),
      );
      return (await initChatModel(model)) as unknown as BaseChatModel;
    },
  });
}

/**
 * What can be known of `"provider:model"` before the first summary: langchain (whose `initChatModel` builds it) is
 * installed, the provider is one it knows, and the provider's package is installed — so a `model` that cannot work
 * is refused where it is given, not by every compaction after it.
 * @throws CompactionError MISSING_DEPENDENCY naming the package to install; INVALID_ARGUMENT naming the provider.
 */
function checkProvider(model: string): void {
  requireAllInstalled(["langchain"], `model: ${JSON.stringify(model)}`);
  const provider = model.slice(0, model.indexOf(":"));
  const known = providerPackages();
  const entry = known[provider];
  if (!entry) {
    argument(
      "model",
      model,
      never(
        `"provider:model" with a provider langchain's initChatModel knows (${Object.keys(known).join(", ")}), a chat model, or a model name such as "gpt-4o"`,
      ),
    );
    return;
  }
  if (!isInstalledPackage(entry.package)) throw missingDependency(entry.package, `model: ${JSON.stringify(model)}`);
}

/** langchain's providers of `initChatModel`, each with the package that holds its chat model. */
function providerPackages(): Record<string, { package: string }> {
  const universal = requireModule<{ MODEL_PROVIDER_CONFIG: Record<string, { package: string }> }>(
    "langchain/chat_models/universal",
  );
  return universal.MODEL_PROVIDER_CONFIG;
}

/** What shapes an LlmSummarizer the library builds. */
type Shape = Pick<LlmSummarizerOptions, "summaryPrompt" | "trimTokensToSummarize" | "counter">;

/**
 * `given`, else the one `model` asks for, else the default summarizer (`createDefaultSummarizer`), with how it was
 * chosen. `wording`'s prompt and trim shape a summarizer built here, and are refused beside any other.
 * @throws CompactionError INVALID_ARGUMENT for `summaryPrompt` or `trimTokensToSummarize` with a summarizer not built here.
 */
export function chooseSummarizer(
  given: Summarizer | undefined,
  {
    env = {},
    counter,
    model,
    wording = {},
  }: {
    env?: Record<string, string | undefined>;
    counter?: TokenCounter;
    model?: unknown;
    wording?: SummaryWording;
  } = {},
): { summarizer: Summarizer; choice: SummarizerChoice } {
  const shape: Shape = {
    summaryPrompt: wording.summaryPrompt,
    trimTokensToSummarize: wording.trimTokensToSummarize,
    counter,
  };
  const choose = (summarizer: Summarizer, source: SummarizerChoice["source"], why: string) => ({
    summarizer,
    choice: {
      source,
      name: summarizer.name,
      ...(summarizer.model ? { model: summarizer.model } : {}),
      reason: `${describe(summarizer)}: ${why}`,
    },
  });
  if (given) {
    refuseForeignWording(wording, "given");
    return choose(given, "given", "passed by the application");
  }
  const fromModel = summarizerForModel(model, shape);
  if (fromModel) return choose(fromModel, "model", "`model` names the chat model the summaries come from");
  const apiKey = env.OPENAI_API_KEY;
  if (!apiKey || !isInstalled("@langchain/openai")) refuseForeignWording(wording, "offline extractive");
  if (!apiKey)
    return choose(
      new ExtractiveSummarizer({ counter }),
      "offline",
      "no summarizer was given and `env` holds no OPENAI_API_KEY",
    );
  if (!isInstalled("@langchain/openai")) {
    warnOnce();
    return choose(
      new ExtractiveSummarizer({ counter }),
      "offline-no-package",
      "OPENAI_API_KEY is set but @langchain/openai is not installed",
    );
  }
  const summarizer = createOpenAISummarizer(
    {
      apiKey,
      model: env.SUMMARY_MODEL || env.OPENAI_MODEL || DEFAULT_SUMMARY_MODEL,
      baseURL: env.OPENAI_BASE_URL || undefined,
    },
    shape,
  );
  return choose(
    summarizer,
    "openai",
    `OPENAI_API_KEY is set${env.OPENAI_BASE_URL ? ` (server ${env.OPENAI_BASE_URL})` : ""}`,
  );
}

function describe(summarizer: Summarizer): string {
  return summarizer.model
    ? `the ${summarizer.name} summarizer over ${summarizer.model}`
    : `the ${summarizer.name} summarizer`;
}
