/**
 * Model name -> tokenizer encoding and context window.
 *
 * Names are matched by prefix after stripping a provider prefix ("openai:", "openai/") so dated snapshots
 * ("gpt-4o-2024-08-06") and fine-tunes ("ft:gpt-4o-mini:org::id") resolve. Models with no public tokenizer
 * (Claude, DeepSeek, Gemini, Llama, Mistral...) are counted with `DEFAULT_ENCODING`: an estimate, typically within
 * ~10-20% of the provider's own count, which is why limits should keep some headroom.
 */

import { CompactionError } from "../errors.js";
import { argument } from "../options/check.js";
import { never, number } from "../options/rules.js";

/** What a limit must be (a trigger in tokens or a share, TOKEN_LIMIT, `--limit`, a hook's `budget`). */
const LIMIT = number("a positive number of tokens, or a fraction (0 < x <= 1) of the model's context window", {
  above: 0,
});

export type EncodingName = "o200k_base" | "cl100k_base";

/** The encoding used for models with no public tokenizer, and for unknown names. */
export const DEFAULT_ENCODING: EncodingName = "o200k_base";

/** The context window assumed for a model that is not in the table. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** The model assumed when none is given. */
export const DEFAULT_MODEL = "gpt-4o";

interface ModelEntry {
  prefix: string;
  encoding: EncodingName;
  contextWindow: number;
}

// Longest prefix wins, so order does not matter; the table is sorted by length at load.
const MODEL_TABLE: ModelEntry[] = (
  [
    { prefix: "gpt-5", encoding: "o200k_base", contextWindow: 400_000 },
    { prefix: "gpt-5-chat", encoding: "o200k_base", contextWindow: 128_000 },
    { prefix: "gpt-4.1", encoding: "o200k_base", contextWindow: 1_047_576 },
    { prefix: "gpt-4.5", encoding: "o200k_base", contextWindow: 128_000 },
    { prefix: "gpt-4o", encoding: "o200k_base", contextWindow: 128_000 },
    { prefix: "chatgpt-4o", encoding: "o200k_base", contextWindow: 128_000 },
    { prefix: "gpt-oss", encoding: "o200k_base", contextWindow: 131_072 },
    { prefix: "o1", encoding: "o200k_base", contextWindow: 200_000 },
    { prefix: "o1-mini", encoding: "o200k_base", contextWindow: 128_000 },
    { prefix: "o1-preview", encoding: "o200k_base", contextWindow: 128_000 },
    { prefix: "o3", encoding: "o200k_base", contextWindow: 200_000 },
    { prefix: "o4", encoding: "o200k_base", contextWindow: 200_000 },
    { prefix: "gpt-4", encoding: "cl100k_base", contextWindow: 8_192 },
    { prefix: "gpt-4-32k", encoding: "cl100k_base", contextWindow: 32_768 },
    { prefix: "gpt-4-turbo", encoding: "cl100k_base", contextWindow: 128_000 },
    { prefix: "gpt-4-1106", encoding: "cl100k_base", contextWindow: 128_000 },
    { prefix: "gpt-4-0125", encoding: "cl100k_base", contextWindow: 128_000 },
    { prefix: "gpt-3.5-turbo", encoding: "cl100k_base", contextWindow: 16_385 },
    { prefix: "gpt-3.5-turbo-instruct", encoding: "cl100k_base", contextWindow: 4_096 },
    // No public tokenizer: DEFAULT_ENCODING as an estimate, windows as the providers publish them.
    { prefix: "claude", encoding: DEFAULT_ENCODING, contextWindow: 200_000 },
    { prefix: "deepseek", encoding: DEFAULT_ENCODING, contextWindow: 128_000 },
    { prefix: "gemini", encoding: DEFAULT_ENCODING, contextWindow: 1_048_576 },
    { prefix: "llama", encoding: DEFAULT_ENCODING, contextWindow: 128_000 },
    { prefix: "mistral", encoding: DEFAULT_ENCODING, contextWindow: 128_000 },
    { prefix: "qwen", encoding: DEFAULT_ENCODING, contextWindow: 131_072 },
    { prefix: "gemini-1.5-pro", encoding: DEFAULT_ENCODING, contextWindow: 2_097_152 },
    { prefix: "codestral", encoding: DEFAULT_ENCODING, contextWindow: 256_000 },
    { prefix: "ministral", encoding: DEFAULT_ENCODING, contextWindow: 128_000 },
    { prefix: "pixtral", encoding: DEFAULT_ENCODING, contextWindow: 128_000 },
    // Llama by the names its hosts use ("meta-llama/Meta-Llama-3.1-8B-Instruct", Ollama's "llama3.1:8b", Bedrock's
    // "meta.llama3-1-70b-instruct-v1:0"): 3.0 had 8k.
    { prefix: "llama3", encoding: DEFAULT_ENCODING, contextWindow: 8_192 },
    { prefix: "llama3.1", encoding: DEFAULT_ENCODING, contextWindow: 131_072 },
    { prefix: "llama3.2", encoding: DEFAULT_ENCODING, contextWindow: 131_072 },
    { prefix: "llama3.3", encoding: DEFAULT_ENCODING, contextWindow: 131_072 },
    { prefix: "llama3-1", encoding: DEFAULT_ENCODING, contextWindow: 131_072 },
    { prefix: "llama3-2", encoding: DEFAULT_ENCODING, contextWindow: 131_072 },
    { prefix: "llama3-3", encoding: DEFAULT_ENCODING, contextWindow: 131_072 },
    { prefix: "llama-3-", encoding: DEFAULT_ENCODING, contextWindow: 8_192 },
    { prefix: "meta-llama-3-", encoding: DEFAULT_ENCODING, contextWindow: 8_192 },
    { prefix: "meta-llama-3.1", encoding: DEFAULT_ENCODING, contextWindow: 131_072 },
    { prefix: "meta-llama-3.2", encoding: DEFAULT_ENCODING, contextWindow: 131_072 },
    { prefix: "meta-llama-3.3", encoding: DEFAULT_ENCODING, contextWindow: 131_072 },
    { prefix: "command-r", encoding: DEFAULT_ENCODING, contextWindow: 128_000 },
    { prefix: "command-a", encoding: DEFAULT_ENCODING, contextWindow: 256_000 },
    { prefix: "nova-pro", encoding: DEFAULT_ENCODING, contextWindow: 300_000 },
    { prefix: "nova-lite", encoding: DEFAULT_ENCODING, contextWindow: 300_000 },
    { prefix: "nova-micro", encoding: DEFAULT_ENCODING, contextWindow: 128_000 },
  ] satisfies ModelEntry[]
).sort((a, b) => b.prefix.length - a.prefix.length);

export interface ModelInfo {
  /** The name as given. */
  model: string;
  encoding: EncodingName;
  contextWindow: number;
  /** False when the name matched no table entry and the defaults were used. */
  known: boolean;
}

function normalize(model: string): string {
  let name = model.trim().toLowerCase();
  if (name.startsWith("ft:")) name = name.slice(3);
  const slash = name.lastIndexOf("/");
  if (slash >= 0) name = name.slice(slash + 1);
  // Bedrock's model ids: "anthropic.claude-3-5-sonnet-20240620-v1:0", "us.amazon.nova-pro-v1:0".
  name = name.replace(/^(?:(?:us|eu|apac|global)\.)?(?:anthropic|amazon|meta|mistral|cohere|deepseek|qwen)\./, "");
  const colon = name.indexOf(":");
  // "openai:gpt-4o" (initChatModel style) -> "gpt-4o"; "gpt-4o-mini:org::id" (fine-tune) -> "gpt-4o-mini"
  if (colon >= 0) {
    const before = name.slice(0, colon);
    name = MODEL_TABLE.some((entry) => before.startsWith(entry.prefix)) ? before : name.slice(colon + 1);
  }
  return name;
}

/** Resolve a model name to its encoding and context window. Never throws: unknown names get the defaults. */
export function resolveModel(model: string = DEFAULT_MODEL): ModelInfo {
  const name = normalize(model);
  const entry = MODEL_TABLE.find((candidate) => name.startsWith(candidate.prefix));
  if (!entry) {
    return { model, encoding: DEFAULT_ENCODING, contextWindow: DEFAULT_CONTEXT_WINDOW, known: false };
  }
  return { model, encoding: entry.encoding, contextWindow: entry.contextWindow, known: true };
}

/** The context window of a model, in tokens (`DEFAULT_CONTEXT_WINDOW` when unknown). */
export function getContextWindow(model: string = DEFAULT_MODEL): number {
  return resolveModel(model).contextWindow;
}

/** The smallest limit, in tokens, a limit may resolve to: below it no history fits a summary and a turn. */
export const MIN_LIMIT_TOKENS = 100;

/**
 * The one rule for limits (`tokenLimit`, `hardLimit`, TOKEN_LIMIT, `--limit`, a hook's `budget`): a number > 1 is
 * tokens, a number 0 < x <= 1 is that fraction of the model's context window (`contextWindow` when given, else the
 * model's known window). `resolveTokenLimit(0.75, "gpt-4o")` is 96,000.
 * @throws CompactionError INVALID_ARGUMENT naming `parameter`: not a positive number, a fraction of the window of a
 *   model whose window is unknown (pass contextWindow), or under 100 tokens once resolved.
 */

export function resolveTokenLimit(
  given: unknown,
  model: string = DEFAULT_MODEL,
  { parameter = "tokenLimit", contextWindow }: { parameter?: string; contextWindow?: number } = {},
): number {
  const limit = argument(parameter, given, LIMIT);
  const info = resolveModel(model);
  if (limit <= 1 && contextWindow === undefined && !info.known) {
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "model",
      value: model,
      message: `${parameter} ${limit} is a fraction of the context window, but model ${JSON.stringify(model)} is not one whose window this library knows: give ${parameter} in tokens.`,
    });
  }
  const tokens = limit <= 1 ? Math.floor(limit * (contextWindow ?? info.contextWindow)) : Math.floor(limit);
  if (tokens < MIN_LIMIT_TOKENS) argument(parameter, limit, never(`at least ${MIN_LIMIT_TOKENS} tokens once resolved`));
  return tokens;
}
