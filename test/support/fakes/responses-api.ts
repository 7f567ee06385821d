/**
 * OpenAI's Responses API (`POST /v1/responses`) for the local Chat Completions server: what `createAgent({ model:
 * "openai:…" })` speaks, since langchain builds that model with `useResponsesApi`. The request is handed to the same
 * policy as a chat completion (its `input` as `messages`); the answer is a Responses object, or its SSE events when
 * `stream` is set (text deltas, function calls, then `response.completed` with the usage).
 */
import type { ServerResponse } from "node:http";

export interface ResponsesRequest {
  model: string;
  input: Array<{
    role?: string;
    type?: string;
    content?: unknown;
    name?: string;
    call_id?: string;
    output?: unknown;
    arguments?: string;
  }>;
  tools?: unknown[];
  stream?: boolean;
  [key: string]: unknown;
}

/** The Responses request as the policy reads a chat completion: its input items as messages. */
export function asChatRequest(body: ResponsesRequest) {
  return {
    model: body.model,
    stream: body.stream,
    tools: body.tools,
    messages: body.input.map((item) =>
      item.type === "function_call_output"
        ? { role: "tool", content: item.output, tool_call_id: item.call_id }
        : item.type === "function_call"
          ? {
              role: "assistant",
              content: null,
              tool_calls: [
                { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } },
              ],
            }
          : { role: item.role ?? "user", content: item.content },
    ),
  };
}

export function answerResponses(
  response: ServerResponse,
  body: ResponsesRequest,
  reply: { content?: string; toolCalls?: Array<{ name: string; arguments: string; id?: string }> },
  index: number,
  inputTokens: number,
): void {
  const id = `resp_local_${index}`;
  const text = reply.content ?? "";
  const messageItem = {
    type: "message",
    id: `msg_local_${index}`,
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  };
  const calls = (reply.toolCalls ?? []).map((call, position) => ({
    type: "function_call",
    id: `fc_local_${index}_${position}`,
    call_id: call.id ?? `call_local_${index}_${position}`,
    name: call.name,
    arguments: call.arguments,
    status: "completed",
  }));
  const output = [...(text ? [messageItem] : []), ...calls];
  const outputTokens = Math.ceil(text.length / 4) + calls.length * 8;
  const completed = {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model: body.model,
    status: "completed",
    output,
    usage: {
      input_tokens: inputTokens,
      output_tokens: outputTokens,
      total_tokens: inputTokens + outputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  };
  if (!body.stream) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(completed));
    return;
  }
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) =>
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  event("response.created", { response: { ...completed, status: "in_progress", output: [] } });
  let position = 0;
  if (text) {
    event("response.output_item.added", {
      output_index: position,
      item: { ...messageItem, status: "in_progress", content: [] },
    });
    for (const token of text.match(/\s*\S+/g) ?? [])
      event("response.output_text.delta", {
        item_id: messageItem.id,
        output_index: position,
        content_index: 0,
        delta: token,
      });
    event("response.output_text.done", { item_id: messageItem.id, output_index: position, content_index: 0, text });
    event("response.output_item.done", { output_index: position, item: messageItem });
    position++;
  }
  for (const call of calls) {
    event("response.output_item.added", {
      output_index: position,
      item: { ...call, arguments: "", status: "in_progress" },
    });
    event("response.function_call_arguments.delta", {
      item_id: call.id,
      output_index: position,
      delta: call.arguments,
    });
    event("response.output_item.done", { output_index: position, item: call });
    position++;
  }
  event("response.completed", { response: completed });
  response.end();
}
