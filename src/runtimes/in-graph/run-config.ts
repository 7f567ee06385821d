/**
 * What the in-graph step reads from the config LangGraph hands a node (a middleware's runtime carries the same
 * `configurable`): the thread, and the checkpoint namespace that says whether the step runs in a subgraph.
 */
type RunConfig = { configurable?: { thread_id?: unknown; checkpoint_ns?: unknown } } | undefined;

export function threadIdOf(config: unknown): string | undefined {
  const id = (config as RunConfig)?.configurable?.thread_id;
  return id === undefined || id === null ? undefined : String(id);
}

/** The key of a thread's summary in flight (runs without a thread share one; the rebase rule keeps them apart). */
export function threadKey(config: unknown): string {
  return threadIdOf(config) ?? "";
}

/** The step's checkpoint namespace: `""` or `node:task` in the root graph, `parent:task|node:task` in a subgraph. */
export function namespaceOf(config: unknown): unknown {
  return (config as RunConfig)?.configurable?.checkpoint_ns;
}
