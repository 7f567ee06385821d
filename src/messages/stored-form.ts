/**
 * What is stored of a message, as one string: two versions of a message are the same exactly when their stored forms
 * are equal. A rendering is not an identity — an edit that changes only an image part's URL, `additional_kwargs`, a
 * tool call's id or `response_metadata` leaves the text as it was and is still another version. The form is read
 * from what LangGraph's serde stores (a LangChain message's `toJSON()` kwargs, the transcript's serialized message) or
 * from the plain JSON of one (the Agent Server's state through the SDK): its type and every field but the id, keys
 * sorted, empty fields left out (a message read back from a checkpoint is the same version as the one written).
 * Plain data: no Node built-ins, nothing of LangChain at run time.
 */

/** LangChain's message classes as their `getType()` names them (a chunk is the message it builds). */
const TYPES: Record<string, string> = {
  HumanMessage: "human",
  AIMessage: "ai",
  ToolMessage: "tool",
  SystemMessage: "system",
  ChatMessage: "generic",
  FunctionMessage: "function",
  RemoveMessage: "remove",
};

/** Fields that frame a message rather than store it. */
const FRAMING = new Set(["id", "type", "lc", "lc_kwargs", "lc_serializable", "lc_namespace", "example"]);

const forms = new WeakMap<object, string>();

/** The stored form of a LangChain message or of the plain JSON of one. */
export function storedForm(message: object): string {
  let form = forms.get(message);
  if (form === undefined) {
    form = formOf(message);
    forms.set(message, form);
  }
  return form;
}

/** The stored form of a message serialized by LangGraph's serde (a transcript entry's `message`). */
export function storedFormOfSerialized(serialized: string): string {
  return formOfJson(JSON.parse(serialized) as unknown);
}

function formOf(message: object): string {
  const toJSON = (message as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return formOfJson(toJSON.call(message) as unknown);
  const getType = (message as { getType?: unknown }).getType;
  const type = typeof getType === "function" ? String(getType.call(message)) : String(readField(message, "type"));
  return `${type}:${canonical(fieldsOf(message as Record<string, unknown>))}`;
}

function formOfJson(json: unknown): string {
  const record = (json ?? {}) as { type?: unknown; id?: unknown; kwargs?: unknown };
  if (record.type === "constructor" && Array.isArray(record.id) && typeof record.kwargs === "object") {
    const name = String(record.id.at(-1)).replace(/Chunk$/, "");
    return `${TYPES[name] ?? name}:${canonical(fieldsOf(record.kwargs as Record<string, unknown>))}`;
  }
  return `${String(record.type)}:${canonical(fieldsOf(record as Record<string, unknown>))}`;
}

function readField(message: object, key: string): unknown {
  return (message as Record<string, unknown>)[key];
}

/** The fields that are stored: every own field but the framing ones. */
function fieldsOf(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).filter(([key, value]) => !FRAMING.has(key) && typeof value !== "function"),
  );
}

/** JSON with sorted keys, where an empty value (undefined, null, {}, []) is the same as none. */
function canonical(value: unknown): string {
  return JSON.stringify(normalized(value)) ?? "";
}

function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => normalized(item) ?? null);
  if (typeof value !== "object" || value === null) return value ?? undefined;
  const entries = Object.keys(value)
    .sort()
    .map((key) => [key, normalized((value as Record<string, unknown>)[key])] as const)
    .filter(([, item]) => !isEmpty(item));
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.length === 0);
}
