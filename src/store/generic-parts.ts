/** A name, of this process, for a saver with no tables of its own (the generic backend: MemorySaver, any other saver). */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { randomUUID } from "node:crypto";

const genericIds = new WeakMap<BaseCheckpointSaver, string>();

/** A name for a saver this library cannot look into: its own, in this process. */
export function genericIdentity(saver: BaseCheckpointSaver): string {
  let id = genericIds.get(saver);
  if (!id) genericIds.set(saver, (id = `${process.pid}-${randomUUID()}`));
  return id;
}
