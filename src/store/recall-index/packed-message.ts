/**
 * A transcript row's message as it is stored: LangGraph's serde JSON (message-serde.ts) deflated with a dictionary of
 * what every message's JSON repeats (its class path, its empty fields), behind a format byte. The row keeps no second
 * copy of the message's words: they are derived from it (`textOfMessage`), as the entry wrote them (recallText).
 * A row written before (its message as JSON text) reads as it was.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { recallText } from "../../messages/message-shape.js";

/** The first byte of a packed message: its format. Its dictionary never changes; a new one takes a new byte. */
const PACKED_V1 = 1;

/** What message JSON repeats, most frequent last (deflate finds the nearest match first). */
const DICTIONARY = Buffer.from(
  [
    '"usage_metadata":{"input_tokens":',
    ',"output_tokens":',
    ',"total_tokens":',
    '"invalid_tool_calls":[],',
    '"type":"tool_call"}',
    '"tool_call_id":"call_',
    '"tool_calls":[{"id":"call_',
    '","name":"',
    '","args":{"',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","SystemMessage"],"kwargs":{"content":"',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","ToolMessage"],"kwargs":{"id":"',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"id":"',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"id":"',
    '","content":"',
    '","additional_kwargs":{},"response_metadata":{}}}',
  ].join(""),
  "utf8",
);

export function packMessage(json: string): Buffer {
  return Buffer.concat([Buffer.of(PACKED_V1), deflateRawSync(Buffer.from(json, "utf8"), { dictionary: DICTIONARY })]);
}

/** The message JSON a row holds: packed (a Buffer, or a `\x…` hex string from Postgres' JSON), or JSON text. */
export function unpackMessage(stored: unknown): string | undefined {
  if (stored === null || stored === undefined) return undefined;
  const bytes =
    typeof stored === "string"
      ? stored.startsWith("\\x")
        ? Buffer.from(stored.slice(2), "hex")
        : undefined
      : Buffer.from(stored as Uint8Array);
  if (bytes === undefined) return stored as string;
  if (bytes[0] !== PACKED_V1) throw new Error(`a transcript row holds a message in an unknown format (${bytes[0]})`);
  return inflateRawSync(bytes.subarray(1), { dictionary: DICTIONARY }).toString("utf8");
}

/** The searchable text of the message `json` holds: recallText of the message, read from its JSON. */
export function textOfMessage(json: string): string {
  const parsed = JSON.parse(json) as { id?: unknown; kwargs?: Record<string, unknown> };
  const kind = Array.isArray(parsed.id) ? String(parsed.id.at(-1)) : "";
  const kwargs = parsed.kwargs ?? (parsed as Record<string, unknown>);
  return recallText({ ...kwargs, content: kwargs.content, type: kind.startsWith("AIMessage") ? "ai" : "other" });
}
