/**
 * Model name -> tokenizer encoding and context window.
 *
 * Names are matched by prefix after stripping a provider prefix ("openai:", "openai/") so dated snapshots
 * ("gpt-4o-2024-08-06") and fine-tunes ("ft:gpt-4o-mini:org::id") resolve. Models with no public tokenizer
 * (Claude, DeepSeek, Gemini, Llama, Mistral...) are counted with `DEFAULT_ENCODING`: an estimate, typically within
 * ~10-20% of the provider's own count, which is why limits should keep some headroom.
 */

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

/** The smallest limit, in tokens, a limit may resolve to: below it no history fits a summary and a turn. */
export const MIN_LIMIT_TOKENS = 100;
