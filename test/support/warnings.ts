/**
 * The library's notices are process warnings (engine/notices.ts): what a test hears of them while it runs, by code
 * (`LANGGRAPH_COMPACTION_<code>`, the prefix taken off). Warnings are emitted on the next tick: `heard()` waits one.
 */
export interface HeardWarning {
  code: string;
  message: string;
}

export function listenForWarnings(): { heard: () => Promise<HeardWarning[]>; stop: () => void } {
  const warnings: HeardWarning[] = [];
  const listen = (warning: Error & { code?: string }) => {
    if (warning.code?.startsWith("LANGGRAPH_COMPACTION_"))
      warnings.push({ code: warning.code.slice("LANGGRAPH_COMPACTION_".length), message: warning.message });
  };
  process.on("warning", listen);
  return {
    heard: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return [...warnings];
    },
    stop: () => void process.off("warning", listen),
  };
}
