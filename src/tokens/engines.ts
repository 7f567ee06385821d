import { createRequire } from "node:module";
import { GenerationalCache } from "./generational-cache.js";
import type { EncodingName } from "./models.js";

/**
 * A tokenizer engine counts the tokens of one bounded piece of text, with special-token strings such as
 * `<|endoftext|>` counted as plain text (a user may paste one; it must never crash the counter).
 *
 * Engines are built lazily, once per process and encoding, and shared by every TokenCounter: building the o200k
 * tables costs 0.2-0.8 s and tens of MB, so it must never happen per call.
 */
export interface TokenizerEngine {
  readonly name: EngineName;
  readonly encoding: EncodingName;
  /** Token count of `text`. Callers keep pieces short (see split.ts): the underlying BPE is super-linear. */
  count(text: string): number;
  /**
   * The same count from a process-wide memo, for short strings that repeat on every message (roles, names, tool
   * names, small arguments): a map lookup instead of an engine call.
   */
  countShort(text: string): number;
}

const SHORT_TEXT_ENTRIES = 20_000;

function withShortMemo(engine: Omit<TokenizerEngine, "countShort">): TokenizerEngine {
  const memo = new Map<string, number>();
  return {
    ...engine,
    countShort(text) {
      let tokens = memo.get(text);
      if (tokens === undefined) {
        tokens = engine.count(text);
        if (memo.size >= SHORT_TEXT_ENTRIES) memo.clear();
        memo.set(text, tokens);
      }
      return tokens;
    },
  };
}

/**
 * `gpt-tokenizer` is the default: it counts identically to js-tiktoken and tiktoken on realistic text and is several
 * times faster (see `npm run bench`). `js-tiktoken` stays supported for users who want LangChain's own tokenizer.
 */
export type EngineName = "gpt-tokenizer" | "js-tiktoken";

export const ENGINE_NAMES: readonly EngineName[] = ["gpt-tokenizer", "js-tiktoken"];
export const DEFAULT_ENGINE: EngineName = "gpt-tokenizer";

// Synchronous, lazy loading: counting is synchronous, and only the encodings actually used should be loaded.
const require = createRequire(import.meta.url);
const engines = new Map<string, TokenizerEngine>();

interface GptTokenizerApi {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
  setMergeCacheSize(size: number): void;
}

interface GptEncodingModule {
  GptEncoding: { getEncodingApi(encoding: string, getRanks: () => unknown): GptTokenizerApi };
}

interface JsTiktokenModule {
  Tiktoken: new (ranks: unknown) => { encode(text: string, allowed: string[], disallowed: string[]): number[] };
}

/** Entries per generation of the encoder's merge cache (per-pre-token results; see generational-cache.ts). */
const MERGE_CACHE_GENERATION = 100_000;

function buildGptTokenizer(encoding: EncodingName): Omit<TokenizerEngine, "countShort"> {
  // A private encoder instance rather than the package's shared one, so nothing here leaks to other users of
  // gpt-tokenizer in the process. Its merge cache (~2.5x faster on ordinary text) is swapped for a generational one
  // with O(1) eviction; if a future version moves that field, the encoder runs without a cache rather than with the
  // slow one.
  const { GptEncoding } = require("gpt-tokenizer/GptEncoding") as GptEncodingModule;
  const loaded = require(`gpt-tokenizer/bpeRanks/${encoding}`) as { default?: unknown };
  const ranks = loaded.default ?? loaded;
  const api = GptEncoding.getEncodingApi(encoding, () => ranks);
  const core = (api as unknown as { bytePairEncodingCoreProcessor?: { mergeCache?: unknown; mergeCacheSize?: number } }).bytePairEncodingCoreProcessor;
  if (core && core.mergeCache instanceof Map) {
    core.mergeCache = new GenerationalCache<string, number[]>(MERGE_CACHE_GENERATION);
  } else {
    api.setMergeCacheSize(0);
  }
  // An empty disallowed set makes special-token strings ordinary text instead of an exception.
  const asPlainText = { disallowedSpecial: new Set<string>() };
  return { name: "gpt-tokenizer", encoding, count: (text) => api.countTokens(text, asPlainText) };
}

function buildJsTiktoken(encoding: EncodingName): Omit<TokenizerEngine, "countShort"> {
  const { Tiktoken } = require("js-tiktoken/lite") as JsTiktokenModule;
  const loaded = require(`js-tiktoken/ranks/${encoding}`) as { default?: unknown };
  const ranks = loaded.default ?? loaded;
  const encoder = new Tiktoken(ranks);
  return { name: "js-tiktoken", encoding, count: (text) => encoder.encode(text, [], []).length };
}

/** The shared engine for `(name, encoding)`, built on first use. */
export function getEngine(name: EngineName, encoding: EncodingName): TokenizerEngine {
  const key = `${name}:${encoding}`;
  let engine = engines.get(key);
  if (!engine) {
    engine = withShortMemo(name === "js-tiktoken" ? buildJsTiktoken(encoding) : buildGptTokenizer(encoding));
    engines.set(key, engine);
  }
  return engine;
}
