/**
 * What a saver with no tables of its own gets from this library (the generic backend: MemorySaver, any other saver):
 * leases and a name, both of this process.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { randomUUID } from "node:crypto";
import { MemoryLeases } from "./leases.js";

const genericIds = new WeakMap<BaseCheckpointSaver, string>();

/** A name for a saver this library cannot look into: its own, in this process. */
export function genericIdentity(saver: BaseCheckpointSaver): string {
  let id = genericIds.get(saver);
  if (!id) genericIds.set(saver, (id = `${process.pid}-${randomUUID()}`));
  return id;
}

const memoryLeases = new WeakMap<BaseCheckpointSaver, MemoryLeases>();

/** The in-process leases of a saver with no table of its own (one per saver object). */
export function genericLeases(saver: BaseCheckpointSaver): MemoryLeases {
  let leases = memoryLeases.get(saver);
  if (!leases) memoryLeases.set(saver, (leases = new MemoryLeases()));
  return leases;
}
