/**
 * The `model` option every entry point takes (the wrapper, the middleware, the node, the worker, `HistoryManager`,
 * `resolvePolicy`, the script's `--model` and TOKEN_MODEL), as langchain's summarization takes it: the chat model the
 * summaries come from (an instance, or `"provider:model"`: summarizers/default.ts), whose name picks the tokenizer and
 * the window of fractional limits. A bare name (`"gpt-4o"`) picks only those. One rule, one message.
 */
import { argument } from "../options/check.js";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { z } from "zod";
import { satisfying, text, type Rule } from "../options/rules.js";
import { DEFAULT_MODEL } from "./models.js";

/** What the `model` option takes: a name, or a chat model (anything with `invoke` and a `model` or `modelName`). */
export type ModelOption = string | { invoke: (...args: never[]) => unknown; model?: unknown; modelName?: unknown };

/** A chat model, as the `model` option takes it (langchain's `BaseChatModel`). */
export type ChatModel = BaseChatModel;

export const MODEL_RULE =
  'a chat model, "provider:model" (e.g. "openai:gpt-4o-mini"), or a model name such as "gpt-4o"';
/** The `model` option's rule. */
export const MODEL: Rule<string | ChatModel> = z.union(
  [
    text(MODEL_RULE),
    satisfying<ChatModel>((value) => typeof (value as { invoke?: unknown } | null)?.invoke === "function", MODEL_RULE),
  ],
  { error: MODEL_RULE },
);

/**
 * The model name `model` stands for; undefined when not given. A chat model without a name reads as the default.
 * @throws CompactionError INVALID_ARGUMENT naming `parameter` (as the user spelled it) and the value.
 */
export function modelNameOf(model: unknown, parameter = "model"): string | undefined {
  if (model === undefined) return undefined;
  argument(parameter, model, MODEL);
  if (typeof model === "string") {
    // "openai:gpt-4o-mini" (langchain's provider:model) names gpt-4o-mini.
    const provider = PROVIDER_PREFIX.exec(model);
    return provider ? model.slice(provider[0].length) : model;
  }
  const candidate = model as { model?: unknown; modelName?: unknown };
  const name = candidate.model ?? candidate.modelName;
  return typeof name === "string" && name ? name : DEFAULT_MODEL;
}

/**
 * The `provider:` of langchain's `"provider:model"` strings — not the `ft:` of an OpenAI fine-tuned model's name
 * ("ft:gpt-4o-mini:org::id"), which is a name.
 */
export const PROVIDER_PREFIX = /^(?!ft:)[a-z][\w-]*:(?=\S)/i;

/**
 * The input window a chat model's profile states (langchain's `model.profile.maxInputTokens`), read as
 * `contextWindow` when that is not given: fractional limits are shares of it.
 */
export function profileWindowOf(model: unknown): number | undefined {
  if (typeof model !== "object" || model === null) return undefined;
  const window = (model as { profile?: { maxInputTokens?: unknown } }).profile?.maxInputTokens;
  return typeof window === "number" && Number.isInteger(window) && window >= 100 ? window : undefined;
}
