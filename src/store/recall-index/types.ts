/**
 * The recall index: every message that a compaction (or any force-write of this library) took out of a thread's
 * head, searchable by its words. Written in the same transaction as the write that takes the message out, so a
 * message is searchable exactly when it leaves the head, and a write that fails or loses its race indexes nothing.
 */

/** The Postgres text search configuration of the recall index when none is given: cuts any language into words. */
export const DEFAULT_RECALL_LANGUAGE = "simple";

/** One indexed message. */
export interface RecallEntry {
  messageId: string;
  role: "user" | "assistant" | "tool" | "system";
  /** The message's name: a speaker, an agent, a tool. */
  name?: string;
  /** ISO 8601, when the message carries a date (messages/date.ts). */
  date?: string;
  /**
   * The head the message left (fork from it to see it in place); for a message that left edited (a cleared tool
   * result), the head its edited copy left, while the entry keeps the original.
   */
  checkpointId: string;
  /** Index of the message in that checkpoint's history (with checkpointId, the chronological order). */
  ordinal: number;
  /** What the message said: its text, its tool calls, its tool result. */
  text: string;
  /**
   * The text of the message before it (clipped), searched at a third of the weight: a question and its answer often
   * use different words, and a later question paraphrases both.
   */
  context?: string;
  /**
   * The message itself as it left the head, serialized with LangGraph's serde (message-serde.ts): the transcript.
   * Absent only on entries written before the transcript existed (`reindexThread` brings them up).
   */
  message?: string;
  /**
   * The id of the message right before it in the head it left (a summary's, a pinned message's, another entry's):
   * how the transcript puts it back in the conversation's order around messages that stayed. Absent on entries
   * written before the transcript existed, and for the first message.
   */
  previousId?: string;
  /**
   * The message's other versions: what the thread held under the same id before or after an edit that kept the id
   * (`updateState`, an `Overwrite`, a graph step writing over it), oldest first, each as a checkpoint held it
   * (versions.ts). Absent for a message that was never edited.
   */
  versions?: RecallVersion[];
}

/** One version of a message the transcript holds under the same id as its entry. */
export interface RecallVersion {
  /** A checkpoint that held this version (checkpoint ids sort by time: the versions' order). */
  checkpointId: string;
  text: string;
  /** The message as that checkpoint held it (message-serde.ts). */
  message?: string;
}

/**
 * What one write does to the index of one thread: the messages leaving the head (or an original whose edited copy
 * stays in it), each replacing the entry of an earlier departure of the same message. A write never takes an entry
 * out: a message that comes back into the head keeps its entry, which readers leave out while the head holds the
 * message as it is (recall/out-of-head.ts). So a write superseded by a turn (that turn's head descends from the head
 * the write replaced) can never leave a message that is out of the head without its entry.
 */
export interface RecallChanges {
  threadId: string;
  add: RecallEntry[];
  /** Entries whose message left the head edited: their place (checkpoint, ordinal) becomes where it left. */
  move?: RecallMove[];
}

export interface RecallMove {
  messageId: string;
  checkpointId: string;
  ordinal: number;
  previousId?: string;
}

/** A message found by `searchHistory`. */
export interface SearchHit {
  messageId: string;
  role: RecallEntry["role"];
  name?: string;
  text: string;
  date?: string;
  checkpointId: string;
  /** Higher is better; comparable within one search only. */
  score: number;
  /**
   * The indexed messages right before and after it, oldest first (a question and its answer span messages): as
   * many as `neighbours` asked for, fewer at the ends of the index.
   */
  before: RecallMessage[];
  after: RecallMessage[];
}

export type RecallMessage = Omit<SearchHit, "score" | "before" | "after" | "version">;

/** What an index's search returns: a message with its place and score, and the versions it is found by. */
export type RecallHit = RecallMessage & { ordinal: number; score: number; versions?: RecallVersion[] };
