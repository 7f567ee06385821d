/**
 * The in-graph runtime's archive of large tool outputs: the option's archive, writing to its own store, else to the
 * graph's; the originals written to the transcript before the edited messages are returned.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { argument } from "../../options/check.js";
import { never } from "../../options/rules.js";
import { graphPlaces } from "../../store/transcript-home.js";
import type { InGraphOptions } from "./in-graph-options.js";
import { threadIdOf } from "./run-config.js";

export class InGraphArchive {
  private warnedNoStore = false;

  constructor(
    private readonly options: InGraphOptions,
    /** Writes what an edit takes out of the state to the transcript (in-graph-transcript.ts). */
    private readonly record: (
      threadId: string | undefined,
      before: readonly BaseMessage[],
      after: readonly BaseMessage[],
      config: unknown,
    ) => Promise<void>,
    private readonly failed: (error: unknown) => undefined,
  ) {}

  /**
   * `messages` with their large tool outputs moved to the archive (the originals written to the transcript first),
   * or undefined when there is no archive, nothing to move, or a failure (told to `onCompactionError`).
   */
  async archived(messages: readonly BaseMessage[], config: unknown): Promise<BaseMessage[] | undefined> {
    const archive = this.options.archive;
    if (!archive || messages.length === 0) return undefined;
    const store: BaseStore | undefined = archive.store ?? graphPlaces(config).store;
    if (!store) {
      const why = "a BaseStore (the graph has none: pass archive.store, or compile the graph with a store)";
      if (!this.warnedNoStore) this.failed(refusal(() => argument("archive.store", store, never(why))));
      this.warnedNoStore = true;
      return undefined;
    }
    if (!archive.hasCandidates(messages)) return undefined;
    const threadId = threadIdOf(config);
    try {
      const { messages: edited, archived } = await archive.archive(messages, {
        store,
        ...(threadId === undefined ? {} : { threadId }),
      });
      if (archived.length === 0) return undefined;
      await this.record(threadId, messages, edited, config);
      return edited;
    } catch (error) {
      return this.failed(error);
    }
  }
}

/** The error `check` throws. */
function refusal(check: () => unknown): unknown {
  try {
    check();
  } catch (error) {
    return error;
  }
  return undefined;
}
