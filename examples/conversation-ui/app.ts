/// <reference lib="dom" />
/**
 * A chat page over an Agent Server thread whose graph compacts with compactionMiddleware (or compactionNode): the
 * person sees the whole conversation — what compaction took out of the state included, with a marker where each
 * compaction happened — while the model sees the compact state. Streams the model's tokens (the compaction's own
 * update never appears in the "messages" stream) and shows a compaction as it happens from the "custom" stream.
 *
 * Open `index.html?apiUrl=http://localhost:2024&assistant=agent` (`&thread=<id>` to reopen a thread); build with
 * `npx esbuild app.ts --bundle --format=esm --outfile=app.js` and serve the folder over HTTP (README.md).
 * `body[data-state]` says "loading", "running", "idle", or "error" (the server cannot be reached, the page was opened
 * as a file: `#error` says which); `body[data-turns]` counts the turns this page finished.
 */
import { Client } from "@langchain/langgraph-sdk";
import { readConversation, type CompactionStreamEvent, type ConversationMessage } from "langgraph-compaction/client";

const params = new URLSearchParams(location.search);
const apiUrl = params.get("apiUrl") ?? "http://localhost:2024";
const client = new Client({ apiUrl });
const assistant = params.get("assistant") ?? "agent";
let threadId = params.get("thread") ?? undefined;
let turns = 0;

const list = document.getElementById("conversation") as HTMLOListElement;
const form = document.getElementById("ask") as HTMLFormElement;
const input = form.elements.namedItem("text") as HTMLInputElement;
const errorLine = document.getElementById("error") as HTMLParagraphElement;

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((part) => (typeof part === "string" ? part : ((part as { text?: string }).text ?? ""))).join("")
      : "";

function messageItem(type: string, id: string | undefined, source: string, text: string): HTMLLIElement {
  const item = document.createElement("li");
  item.className = `message ${type}`;
  item.dataset.id = id ?? "";
  item.dataset.source = source;
  item.textContent = text;
  return item;
}

/** Whether the page shows its end (within a few lines): the person reads the newest messages, not older ones. */
const atEnd = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 64;

/**
 * `update`, then the page scrolled to its end when it showed its end before (or `always`: the person's own message),
 * so a new message and the streamed tokens stay in view, and a person who scrolled up to read is left where they are.
 */
function follow(update: () => void, always = false): void {
  const following = always || atEnd();
  update();
  if (following) window.scrollTo({ top: document.documentElement.scrollHeight });
}

function marker(text: string): HTMLLIElement {
  const item = document.createElement("li");
  item.className = "compaction-marker";
  item.textContent = text;
  return item;
}

/** The whole conversation: every page of it, a marker after the last message each compaction took out. */
async function refresh(): Promise<void> {
  if (!threadId) return;
  const lines: ConversationMessage[] = [];
  let after: number | undefined;
  do {
    const page = await readConversation(client, threadId, { after, limit: 500 });
    lines.push(...page.messages);
    after = page.next;
  } while (after !== undefined);
  // The summary is what the model reads in place of what it covers; the person reads what it covers.
  const shown = lines.filter((line) => line.source !== "summary");
  const items: HTMLLIElement[] = [];
  shown.forEach((line, index) => {
    const message = line.message;
    const calls =
      Array.isArray(message.tool_calls) && message.tool_calls.length > 0
        ? ` [calls ${message.tool_calls.map((call) => (call as { name?: string }).name).join(", ")}]`
        : "";
    items.push(messageItem(message.type, message.id, line.source, textOf(message.content) + calls));
    const group = line.compaction;
    if (group !== undefined && shown[index + 1]?.compaction !== group) {
      const size = shown.filter((other) => other.compaction === group).length;
      items.push(marker(`Earlier messages summarized for the model — ${size} messages above`));
    }
  });
  follow(() => list.replaceChildren(...items));
}

async function send(text: string): Promise<void> {
  document.body.dataset.state = "running";
  if (!threadId) {
    threadId = (await client.threads.create()).thread_id;
    params.set("thread", threadId);
    history.replaceState(null, "", `?${params}`);
  }
  follow(() => list.append(messageItem("human", undefined, "live", text)), true);
  const streamed = new Map<string, HTMLLIElement>();
  for await (const part of client.runs.stream(threadId, assistant, {
    input: { messages: [{ type: "human", content: text }] },
    streamMode: ["messages-tuple", "custom"],
  })) {
    if (part.event === "messages") {
      const [chunk] = part.data as [{ id?: string; type: string; content: unknown }, unknown];
      if (chunk.type === "human") continue;
      const key = chunk.id ?? `chunk-${streamed.size}`;
      follow(() => {
        let item = streamed.get(key);
        if (!item)
          list.append((item = messageItem(chunk.type === "AIMessageChunk" ? "ai" : chunk.type, chunk.id, "live", "")));
        streamed.set(key, item);
        item.textContent += textOf(chunk.content);
      });
    } else if (part.event === "custom" && (part.data as CompactionStreamEvent | undefined)?.type === "compaction") {
      const event = part.data as CompactionStreamEvent;
      follow(() => list.append(marker(`Earlier messages summarized for the model — ${event.removed} messages`)));
    }
  }
  await refresh();
  turns++;
  document.body.dataset.turns = String(turns);
  document.body.dataset.state = "idle";
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = input.value.trim();
  if (!text || document.body.dataset.state === "running" || document.body.dataset.state === "loading") return;
  input.value = "";
  send(text).catch((error: unknown) => {
    showError(error);
    // The conversation goes on: the next question may reach the server.
    document.body.dataset.state = "idle";
  });
});

function showError(error: unknown): void {
  errorLine.hidden = false;
  errorLine.textContent = String((error as Error).message ?? error);
  document.body.dataset.state = "error";
}

/** The server and its assistant first: a page that cannot reach them says so instead of waiting. */
async function start(): Promise<void> {
  try {
    // Asked once, without retries: an unreachable server is said at once.
    await new Client({ apiUrl, callerOptions: { maxRetries: 0 } }).assistants.search({ limit: 1 });
  } catch (error) {
    throw new Error(
      `Cannot reach the Agent Server at ${apiUrl} (${String((error as Error).message ?? error)}). Start it (npx @langchain/langgraph-cli dev) or pass ?apiUrl=… to this page.`,
    );
  }
  await refresh();
  document.body.dataset.turns = String(turns);
  document.body.dataset.state = "idle";
}

start().catch(showError);
