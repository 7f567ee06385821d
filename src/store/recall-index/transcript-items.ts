/**
 * The transcript as items of a LangGraph `BaseStore` — its namespace and the entry an item holds — read the same way
 * by the store's recall backend (base-store-index.ts) and by a browser reading the Agent Server's store through the
 * SDK (src/client.ts). Plain data: no Node built-ins, nothing of LangChain at run time.
 */
import type { RecallEntry, RecallVersion } from "./types.js";

/** The namespace prefix of the transcript in a BaseStore; the thread id (escaped) is the next label. */
export const TRANSCRIPT_NAMESPACE = ["langgraph-compaction", "transcript"] as const;

/** Characters a thread id (or a model's name) keeps in its label: none that a store rejects (".", and PostgresStore's "%", "_", "\\"). */
const PLAIN = /^[A-Za-z0-9\-!*'()]$/;

/**
 * The label of a thread id, one to one: plain characters as they are, every other one as "~" and its UTF-8 bytes in
 * hex ("a.b" → "a~2Eb"; a UUID is its own label). The empty id, which no other id encodes to, is "~".
 */
export function storeLabel(value: string): string {
  if (value === "") return "~";
  const encoder = new TextEncoder();
  let label = "";
  for (const char of value)
    label += PLAIN.test(char)
      ? char
      : [...encoder.encode(char)].map((byte) => `~${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("");
  return label;
}

/** The namespace of one thread's transcript in a BaseStore. */
export function transcriptNamespace(threadId: string): string[] {
  return [...TRANSCRIPT_NAMESPACE, storeLabel(threadId)];
}

const ROLES = new Set(["user", "assistant", "tool", "system"]);

/** An item's value as an entry, or undefined for an item this library did not write. */
export function entryOfItem(value: Record<string, unknown>): RecallEntry | undefined {
  const { messageId, role, checkpointId, ordinal, text } = value;
  if (
    typeof messageId !== "string" ||
    typeof role !== "string" ||
    !ROLES.has(role) ||
    typeof checkpointId !== "string" ||
    typeof ordinal !== "number" ||
    typeof text !== "string"
  )
    return undefined;
  const optional = (key: string) => (typeof value[key] === "string" ? { [key]: value[key] as string } : {});
  const versions = Array.isArray(value.versions) ? value.versions.filter(isVersion) : [];
  return {
    messageId,
    role: role as RecallEntry["role"],
    checkpointId,
    ordinal,
    text,
    ...optional("name"),
    ...optional("date"),
    ...optional("context"),
    ...optional("message"),
    ...optional("previousId"),
    ...(versions.length > 0 ? { versions } : {}),
  };
}

function isVersion(value: unknown): value is RecallVersion {
  const version = value as Partial<RecallVersion> | null;
  return (
    typeof version === "object" &&
    version !== null &&
    typeof version.checkpointId === "string" &&
    typeof version.text === "string" &&
    (version.message === undefined || typeof version.message === "string")
  );
}

/** Whether an entry's message has left the head (an original indexed while its edited copy stays has not: ordinal -1). */
export function hasLeft(place: { ordinal: number }): boolean {
  return place.ordinal >= 0;
}
