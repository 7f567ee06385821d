import { createRequire } from "node:module";
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

interface GptTokenizerModule {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

interface JsTiktokenModule {
  Tiktoken: new (ranks: unknown) => { encode(text: string, allowed: string[], disallowed: string[]): number[] };
}

function buildGptTokenizer(encoding: EncodingName): Omit<TokenizerEngine, "countShort"> {
  const module = require(`gpt-tokenizer/encoding/${encoding}`) as GptTokenizerModule;
  // An empty disallowed set makes special-token strings ordinary text instead of an exception.
  const asPlainText = { disallowedSpecial: new Set<string>() };
  return { name: "gpt-tokenizer", encoding, count: (text) => module.countTokens(text, asPlainText) };
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
