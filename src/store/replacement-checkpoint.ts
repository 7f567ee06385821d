/**
 * The replacement checkpoint of a force-write: a copy of `base` (the head itself, or for recovery the last
 * checkpoint before a failed turn) with `messages` replaced and its version bumped, written after `head`: the id
 * right after the head's, step + 1, `source: "update"`. A delta channel gets a snapshot (checkpoint-messages.ts).
 */
import { copyCheckpoint, type CheckpointMetadata, type CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { replacementValue } from "./checkpoint-messages.js";
import { maxVersion, type ReplacementBuilder } from "./compare-and-swap.js";
import { idAfter } from "./ids.js";

/** `metadata.writtenBy` of every checkpoint this library writes: how reindex tells its writes from the application's. */
export const LIBRARY_WRITER = "langgraph-compaction";

/**
 * Whether this library wrote the checkpoint with `metadata`: marked, or (written before the mark) a compaction, a
 * recovery or a restore.
 */
export function writtenByLibrary(metadata: Record<string, unknown> | undefined): boolean {
  return (
    metadata?.writtenBy === LIBRARY_WRITER ||
    (typeof metadata?.compaction === "object" && metadata.compaction !== null) ||
    (typeof metadata?.restore === "object" && metadata.restore !== null)
  );
}

export interface Replacement {
  id: string;
  /** The greatest channel version of the head and the base, for the saver's `getNextVersion`. */
  baseVersion: number | string | undefined;
  build: ReplacementBuilder;
}

export function buildReplacement(
  head: CheckpointTuple,
  base: CheckpointTuple,
  messages: readonly unknown[],
  extraMetadata: Record<string, unknown> | undefined,
): Replacement {
  const step = ((head.metadata?.step as number | undefined) ?? -1) + 1;
  const id = idAfter(head.checkpoint.id, step);
  const baseVersion = maxVersion({
    head: maxVersion(head.checkpoint.channel_versions) ?? 0,
    base: maxVersion(base.checkpoint.channel_versions) ?? 0,
  });
  const stored = replacementValue(head, messages);
  const build: ReplacementBuilder = (version) => {
    const checkpoint = copyCheckpoint(base.checkpoint);
    checkpoint.id = id;
    checkpoint.ts = new Date().toISOString();
    checkpoint.channel_values = { ...checkpoint.channel_values, messages: stored.value };
    checkpoint.channel_versions = { ...checkpoint.channel_versions, messages: version };
    const metadata = {
      source: "update",
      step,
      parents: (base.metadata?.parents as Record<string, string> | undefined) ?? {},
      ...stored.metadata,
      ...extraMetadata,
      writtenBy: LIBRARY_WRITER,
    } as CheckpointMetadata;
    return { checkpoint, metadata, newVersions: { messages: version } };
  };
  return { id, baseVersion, build };
}
