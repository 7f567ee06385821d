/**
 * Recognising "the request is larger than the model's context window", across providers, and the checkpoint the
 * failed turn started from (where recovery rewrites the thread).
 */
import { ContextOverflowError } from "@langchain/core/errors";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";

const OVERFLOW_PATTERNS = [
  /context_length_exceeded/i, // OpenAI code
  /maximum context length/i, // OpenAI message
  /prompt is too long/i, // Anthropic
  /exceeds? (?:the )?(?:model'?s? )?context (?:window|length|limit)/i, // Anthropic, Mistral, vLLM
  /input (?:is )?too long/i, // Bedrock, Cohere
  /too many (?:input )?tokens/i, // Gemini, Groq
  /reduce the length of the (?:messages|prompt|input)/i,
  /string too long/i,
  /request too large/i,
  /input token count .* exceeds/i, // Gemini
];

/** True when `error` (or its cause chain) says the request outgrew the model's context window. */
export function isContextOverflowError(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || error === undefined) return false;
  if (ContextOverflowError.isInstance(error)) return true;
  if (typeof error === "object") {
    const candidate = error as {
      name?: unknown;
      code?: unknown;
      message?: unknown;
      error?: { code?: unknown; message?: unknown };
      cause?: unknown;
    };
    if (candidate.name === "ContextOverflowError") return true;
    if (candidate.code === "context_length_exceeded" || candidate.error?.code === "context_length_exceeded")
      return true;
    const text = `${String(candidate.message ?? "")} ${String(candidate.error?.message ?? "")}`;
    if (OVERFLOW_PATTERNS.some((pattern) => pattern.test(text))) return true;
    return isContextOverflowError(candidate.cause, depth + 1);
  }
  return typeof error === "string" && OVERFLOW_PATTERNS.some((pattern) => pattern.test(error));
}

/** The checkpoint the latest turn started from (the parent of its "input" checkpoint), among the newest 200. */
export async function checkpointBeforeTurn(saver: BaseCheckpointSaver, threadId: string): Promise<string | undefined> {
  for await (const tuple of saver.list({ configurable: { thread_id: threadId, checkpoint_ns: "" } }, { limit: 200 })) {
    if (tuple.metadata?.source === "input")
      return tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
  }
  return undefined;
}
