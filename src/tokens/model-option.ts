/**
 * The `model` option every entry point takes (the wrapper, the middleware, the node, the worker, `HistoryManager`,
 * `resolvePolicy`, the script's `--model` and TOKEN_MODEL): the model the agents talk to, by name or as the chat
 * model itself (its name is read). It picks the tokenizer and the window of fractional limits. One rule, one message.
 */
import { invalidArgument } from "../errors.js";
import { DEFAULT_MODEL } from "./models.js";

/** What the `model` option takes: a name, or a chat model (anything with `invoke` and a `model` or `modelName`). */
export type ModelOption = string | { invoke: (...args: never[]) => unknown; model?: unknown; modelName?: unknown };

/**
 * The model name `model` stands for; undefined when not given. A chat model without a name reads as the default.
 * @throws CompactionError INVALID_ARGUMENT naming `parameter` (as the user spelled it) and the value.
 */
export function modelNameOf(model: unknown, parameter = "model"): string | undefined {
  if (model === undefined) return undefined;
  if (typeof model === "string") {
    if (model.trim() === "") throw invalidArgument(parameter, model, MODEL_RULE);
    return model;
  }
  if (typeof model === "object" && model !== null && typeof (model as { invoke?: unknown }).invoke === "function") {
    const candidate = model as { model?: unknown; modelName?: unknown };
    const name = candidate.model ?? candidate.modelName;
    return typeof name === "string" && name ? name : DEFAULT_MODEL;
  }
  throw invalidArgument(parameter, model, MODEL_RULE);
}

const MODEL_RULE = 'a model name such as "gpt-4o", or a chat model';
