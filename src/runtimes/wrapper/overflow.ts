/**
 * Recognising "the request is larger than the model's context window", across providers.
 */
import { ContextOverflowError } from "@langchain/core/errors";

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
