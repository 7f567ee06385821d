/**
 * A chat model whose profile window puts the hard limit (90% of the window: engine/policy.ts) at a number of tokens:
 * how a test sets the window at risk, as an application does by the model it gives (`model`). Give a `summarizer`
 * beside it: a chat model as `model` is otherwise the summaries' model too.
 */
import { HARD_LIMIT_SHARE } from "../../src/engine/policy.js";
import { ScriptedChatModel } from "./fakes/scripted-chat-model.js";

export function modelWithHardLimit(hardLimit: number): ScriptedChatModel {
  return new ScriptedChatModel({
    reply: () => ({ content: "unused: the summaries come from the summarizer given beside it" }),
    maxInputTokens: Math.ceil(hardLimit / HARD_LIMIT_SHARE),
  });
}
