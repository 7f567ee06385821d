/** Deprecated options: each said once per process, as a `DeprecationWarning` naming what replaces it. */
const said = new Set<string>();

/** Warns once that `name` is deprecated: `message` says what to use instead. */
export function warnDeprecated(name: string, message: string): void {
  if (said.has(name)) return;
  said.add(name);
  process.emitWarning(message, { type: "DeprecationWarning", code: "LANGGRAPH_COMPACTION_DEPRECATED" });
}
