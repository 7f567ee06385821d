/**
 * A small local HTTP server that speaks OpenAI's Chat Completions protocol (and the Responses API, responses-api.ts): JSON answers, SSE streaming
 * (`stream: true`, with a usage chunk when asked), tool calls, and error responses such as
 * `400 context_length_exceeded`. Lets the real `@langchain/openai` client be tested with no network.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { answerResponses, asChatRequest, type ResponsesRequest } from "./responses-api.js";

export interface ChatCompletionsRequest {
  model: string;
  messages: Array<{ role: string; content: unknown; name?: string; tool_calls?: unknown; tool_call_id?: string }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: unknown[];
  [key: string]: unknown;
}

export type ServerReply =
  | {
      content?: string;
      toolCalls?: Array<{ name: string; arguments: string; id?: string }>;
      /** The usage to report (else estimated from the request and reply), with the prompt tokens read from a cache. */
      usage?: { promptTokens: number; completionTokens: number; cachedTokens?: number };
    }
  | { status: number; error: { message: string; type?: string; code?: string | null; param?: string | null } };

/** Answers a request; a promise holds the response back until it settles (for tests that order events). */
export type ServerPolicy = (request: ChatCompletionsRequest, index: number) => ServerReply | Promise<ServerReply>;

export interface ChatCompletionsServer {
  url: string;
  /** Raw body text and parsed body of every request received, in order. */
  requests: Array<{ raw: string; body: ChatCompletionsRequest; headers: IncomingMessage["headers"] }>;
  close(): Promise<void>;
}

export const contextLengthExceeded = (tokens = 140_000): ServerReply => ({
  status: 400,
  error: {
    message: `This model's maximum context length is 128000 tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
    type: "invalid_request_error",
    code: "context_length_exceeded",
    param: "messages",
  },
});

function estimateTokens(request: ChatCompletionsRequest): number {
  return Math.ceil(JSON.stringify(request.messages).length / 4);
}

function send(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** The prompt as a provider's cache reads it: the model, then the tools, then the messages, in order. */
function promptText(request: ChatCompletionsRequest): string {
  return JSON.stringify({ model: request.model, tools: request.tools ?? [], messages: request.messages });
}

/** The characters of `text` an earlier prompt started with too: what a token-prefix cache serves. */
function cachedPrefix(text: string, earlier: readonly string[]): number {
  let best = 0;
  for (const previous of earlier) {
    let shared = 0;
    while (shared < previous.length && shared < text.length && previous[shared] === text[shared]) shared++;
    best = Math.max(best, shared);
  }
  return best;
}

/**
 * `promptCache`: report `cached_tokens` as a token-prefix cache would (OpenAI's): the longest start of the prompt
 * (promptText) that an earlier request sent too, in the same estimated tokens as the prompt (4 characters each). A
 * reply's own `usage` still wins.
 */
export async function startChatCompletionsServer(
  policy: ServerPolicy,
  { promptCache = false }: { promptCache?: boolean } = {},
): Promise<ChatCompletionsServer> {
  const requests: ChatCompletionsServer["requests"] = [];
  const prompts: string[] = [];
  const server: Server = createServer((request, response) => {
    let raw = "";
    request.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
    request.on("end", async () => {
      if (request.method === "POST" && /\/responses$/.test(request.url ?? "")) {
        let responsesBody: ResponsesRequest;
        try {
          responsesBody = JSON.parse(raw) as ResponsesRequest;
        } catch {
          return send(response, 400, { error: { message: "invalid JSON body", type: "invalid_request_error" } });
        }
        const asChat = asChatRequest(responsesBody) as ChatCompletionsRequest;
        requests.push({ raw, body: asChat, headers: request.headers });
        const answer = await policy(asChat, requests.length - 1);
        if ("status" in answer)
          return send(response, answer.status, { error: { code: null, param: null, type: "error", ...answer.error } });
        return answerResponses(response, responsesBody, answer, requests.length, estimateTokens(asChat));
      }
      if (request.method !== "POST" || !/\/chat\/completions$/.test(request.url ?? "")) {
        return send(response, 404, {
          error: { message: `no route ${request.method} ${request.url}`, type: "not_found" },
        });
      }
      let body: ChatCompletionsRequest;
      try {
        body = JSON.parse(raw) as ChatCompletionsRequest;
      } catch {
        return send(response, 400, { error: { message: "invalid JSON body", type: "invalid_request_error" } });
      }
      requests.push({ raw, body, headers: request.headers });
      const reply = await policy(body, requests.length - 1);
      if ("status" in reply)
        return send(response, reply.status, { error: { code: null, param: null, type: "error", ...reply.error } });
      const id = `chatcmpl-local-${requests.length}`;
      const created = Math.floor(Date.now() / 1000);
      const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
        index,
        id: call.id ?? `call_local_${requests.length}_${index}`,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      }));
      const content = reply.content ?? "";
      const prompt = promptText(body);
      const cachedTokens =
        reply.usage?.cachedTokens ?? (promptCache ? Math.floor(cachedPrefix(prompt, prompts) / 4) : undefined);
      prompts.push(prompt);
      const promptTokens =
        reply.usage?.promptTokens ?? (promptCache ? Math.ceil(prompt.length / 4) : estimateTokens(body));
      const completionTokens = reply.usage?.completionTokens ?? Math.ceil(content.length / 4) + toolCalls.length * 8;
      const usage = {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
        ...(cachedTokens !== undefined ? { prompt_tokens_details: { cached_tokens: cachedTokens } } : {}),
      };
      const finish = toolCalls.length > 0 ? "tool_calls" : "stop";
      if (!body.stream) {
        return send(response, 200, {
          id,
          object: "chat.completion",
          created,
          model: body.model,
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: toolCalls.length > 0 && !content ? null : content,
                ...(toolCalls.length ? { tool_calls: toolCalls.map(({ index: _index, ...call }) => call) } : {}),
              },
              finish_reason: finish,
              logprobs: null,
            },
          ],
          usage,
        });
      }
      response.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
      });
      const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
        response.write(
          `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] })}\n\n`,
        );
      chunk({ role: "assistant", content: "" }, null);
      for (const token of content.match(/\s*\S+/g) ?? []) chunk({ content: token }, null);
      for (const call of toolCalls) {
        chunk(
          {
            tool_calls: [
              {
                index: call.index,
                id: call.id,
                type: "function",
                function: { name: call.function.name, arguments: "" },
              },
            ],
          },
          null,
        );
        chunk({ tool_calls: [{ index: call.index, function: { arguments: call.function.arguments } }] }, null);
      }
      chunk({}, finish);
      if (body.stream_options?.include_usage) {
        response.write(
          `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: body.model, choices: [], usage })}\n\n`,
        );
      }
      response.write("data: [DONE]\n\n");
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
