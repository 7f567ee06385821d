/**
 * `createHistorySearchTool`: the `search_history` tool for agents. The thread is the run's own (its config), so an
 * agent can only search its own conversation; hits come back as compact dated lines within a token budget.
 */
import { tool } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { graphPlaces } from "../store/transcript-home.js";
import { z } from "zod";
import { CompactionError } from "../errors.js";
import { argument } from "../options/check.js";
import { integer } from "../options/rules.js";
import { formatDay } from "../messages/date.js";
import { sharedCounter } from "../tokens/shared-counter.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { DEFAULT_SEARCH_LIMIT, searchLimit } from "../store/recall-index/query.js";
import { searchHistory, type RecallBackendOptions, type TranscriptStoreOption } from "./search.js";
import type { RecallMessage, SearchHit } from "../store/recall-index/types.js";
import { validateSemantic, type SemanticRanking } from "./semantic.js";

export const HISTORY_SEARCH_TOOL = "search_history";
export const DEFAULT_TOOL_MAX_TOKENS = 1_500;

export interface HistorySearchToolOptions extends RecallBackendOptions, TranscriptStoreOption {
  /**
   * The graph's checkpointer. @default the checkpointer of the graph running the tool (as on the Agent Server, where
   * the application never holds it)
   */
  checkpointer?: BaseCheckpointSaver;
  /** Hits per search. @default 5 */
  limit?: number;
  /** Budget of the tool's answer in tokens; lower-ranked hits are left out first. @default 1500 */
  maxTokens?: number;
  counter?: TokenCounter;
  /** Rank with an embedding model too (`searchHistory`'s `semantic`). Off by default. */
  semantic?: SemanticRanking;
}

function line(message: RecallMessage, marker = ""): string {
  const date = message.date ? `[${formatDay(new Date(message.date))}] ` : "";
  const who = message.name ? `${message.name} (${message.role})` : message.role;
  return `${marker}${date}${who}: ${message.text.replace(/\s+/g, " ").trim()}`;
}

/** What a search answer says last: how to ask a second, narrower (or wider) question. */
export const NEXT_SEARCH_HINT =
  "Not what you need? Search again with other words, or narrow it to one speaker (speaker) or a date range (from, to).";

/**
 * Hits as text: each hit with the message before and after it, best first, within `maxTokens`, then how to search
 * again. `filtered`: the search had a speaker or a date range (an empty answer then says to widen it).
 */
export function formatHits(
  hits: readonly SearchHit[],
  maxTokens: number,
  counter: TokenCounter,
  filtered = false,
): string {
  if (hits.length === 0) {
    return filtered
      ? "No earlier message matches with that speaker or date range. Try without them, or with other words."
      : "No earlier message matches. Try other words (names, places, numbers).";
  }
  const blocks: string[] = [];
  let used = 0;
  for (const [index, hit] of hits.entries()) {
    const parts = [
      ...hit.before.map((message) => line(message, "   ")),
      line(hit, `${index + 1}. `),
      ...hit.after.map((message) => line(message, "   ")),
    ];
    let block = parts.join("\n");
    let cost = counter.countText(block) + 1;
    if (used + cost > maxTokens) {
      // The hit alone, clipped to what is left, rather than nothing.
      block = line(hit, `${index + 1}. `);
      const room = Math.max(0, (maxTokens - used) * 3);
      if (room < 40) break;
      if (counter.countText(block) + 1 > maxTokens - used) block = `${block.slice(0, room)}…`;
      cost = counter.countText(block) + 1;
      if (used + cost > maxTokens) break;
    }
    blocks.push(block);
    used += cost;
  }
  return `Earlier messages matching, best first (numbered; the indented ones are the messages around each):\n${blocks.join("\n")}\n${NEXT_SEARCH_HINT}`;
}

/**
 * The `search_history` tool. Give it to the agents of a graph compacted by this library; the running summary tells
 * them it exists. Reads only (with `semantic`, it also keeps the vectors it had to make).
 */
export function createHistorySearchTool({
  checkpointer,
  store,
  limit = DEFAULT_SEARCH_LIMIT,
  maxTokens = DEFAULT_TOOL_MAX_TOKENS,
  counter = sharedCounter(),
  language,
  semantic,
}: HistorySearchToolOptions = {}) {
  validateSemantic(semantic);
  if (checkpointer !== undefined && typeof checkpointer?.getTuple !== "function") {
    throw new CompactionError({
      code: "MISSING_CHECKPOINTER",
      parameter: "checkpointer",
      value: checkpointer,
      message: "checkpointer must be the graph's checkpoint saver",
    });
  }
  searchLimit(limit);
  argument("maxTokens", maxTokens, integer(100));
  return tool(
    async ({ query, speaker, from, to }, config) => {
      const threadId = config?.configurable?.thread_id;
      if (threadId === undefined || threadId === "") {
        // Called outside a graph run (tool.invoke by hand): there is no conversation to search.
        throw new CompactionError({
          code: "MISSING_THREAD_ID",
          parameter: "config.configurable.thread_id",
          value: threadId,
          message: `${HISTORY_SEARCH_TOOL} searches the conversation of the graph run that calls it, and this call has none (config.configurable.thread_id is ${threadId === "" ? '""' : "undefined"}). Give the tool to an agent, or call it with { configurable: { thread_id: "..." } }.`,
        });
      }
      // The graph's own checkpointer and store, as the in-graph runtime finds them.
      const graph = graphPlaces(config);
      try {
        // A model fills optional fields with null or "" as often as it leaves them out: either is no filter.
        const filters = { ...(speaker ? { speaker } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) };
        const hits = await searchHistory(
          checkpointer ?? graph.checkpointer,
          { configurable: { thread_id: threadId } },
          query,
          { limit, language, store: store ?? graph.store, ...filters, ...(semantic ? { semantic } : {}) },
        );
        return formatHits(hits, maxTokens, counter, Object.keys(filters).length > 0);
      } catch (error) {
        // A query the model can fix is answered, not thrown: the model reads the answer and tries again.
        if (CompactionError.isInstance(error) && error.code === "INVALID_ARGUMENT") {
          return error.parameter === "query"
            ? `The search needs words to look for: ${error.message}`
            : `The search could not use that filter: ${error.message}`;
        }
        throw error;
      }
    },
    {
      name: HISTORY_SEARCH_TOOL,
      description:
        "Search the earlier messages of this conversation that were compacted out of your context (the summary only keeps part of them). Give words to look for: names, places, numbers, topics. Optionally narrow it to what one speaker said, or to a date range. Returns the matching messages with their dates and the messages around them. If the first search misses, search again with other words or a narrower filter.",
      schema: z.object({
        query: z.string().describe("Words to look for in earlier messages"),
        speaker: z
          .string()
          .nullish()
          .describe("Only what this speaker said: a name as the messages show it, or user / assistant / tool"),
        from: z.string().nullish().describe("Only messages on or after this day, YYYY-MM-DD"),
        to: z.string().nullish().describe("Only messages on or before this day, YYYY-MM-DD"),
      }),
    },
  );
}
