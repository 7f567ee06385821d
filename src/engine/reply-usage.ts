/**
 * What a reply says of the call that produced it: the provider's figures in its `usage_metadata` (the input tokens,
 * the prompt cache read and written) and the model that answered (`response_metadata`). Read here, trusted or not by
 * the calibration (calibration.ts).
 */
import type { BaseMessage } from "@langchain/core/messages";

/** The provider's figures of one call, from its reply's `usage_metadata`. */
export interface ProviderUsage {
  /** Tokens the provider counted in the call's input (system prompt and tools included). */
  inputTokens: number;
  /** Of those, read from the provider's prompt cache, when it says. */
  cacheRead?: number;
  /** Of those, written to the provider's prompt cache, when it says. */
  cacheCreation?: number;
}

export type Reported = Parameters<typeof usageOf>[0];

/** The thread's latest AI message (`index` -1 when none) and the usage figures it reported, if any. */
export function latestReply(messages: readonly BaseMessage[]): {
  index: number;
  message?: BaseMessage;
  reported?: Reported;
} {
  let index = messages.length - 1;
  while (index >= 0 && messages[index]!.getType() !== "ai") index--;
  const message = index >= 0 ? messages[index]! : undefined;
  return { index, message, reported: (message as { usage_metadata?: Reported } | undefined)?.usage_metadata };
}

/** The provider's figures of the latest reply in `messages`, without counting them (a thread not counted yet). */
export function latestUsage(messages: readonly BaseMessage[]): ProviderUsage | undefined {
  const { reported } = latestReply(messages);
  return reported === undefined ? undefined : usageOf(reported);
}

/** The provider's figures in a reply's `usage_metadata`, or undefined when its input count is not a positive number. */
export function usageOf(reported: {
  input_tokens?: unknown;
  input_token_details?: { cache_read?: unknown; cache_creation?: unknown };
}): ProviderUsage | undefined {
  const input = reported.input_tokens;
  if (typeof input !== "number" || !Number.isFinite(input) || input <= 0) return undefined;
  const details = reported.input_token_details;
  const count = (value: unknown) =>
    typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
  const cacheRead = count(details?.cache_read);
  const cacheCreation = count(details?.cache_creation);
  return {
    inputTokens: input,
    ...(cacheRead === undefined ? {} : { cacheRead }),
    ...(cacheCreation === undefined ? {} : { cacheCreation }),
  };
}

export function modelOf(message: BaseMessage): string {
  const name =
    (message.response_metadata as { model_name?: unknown; model?: unknown } | undefined)?.model_name ??
    (message.response_metadata as { model?: unknown } | undefined)?.model;
  return typeof name === "string" && name !== "" ? name : "unknown";
}
