/**
 * The versions of a message in the transcript. An edit that keeps a message's id (`updateState`, an `Overwrite`, a
 * graph step writing over it) makes two messages under one id; the transcript keeps both. Versions are told apart by
 * what is stored of them (messages/stored-form.ts), never by their text: an edit of an image part or of a kwarg is a
 * version too. A message's entry holds the newest version it has seen (by the checkpoint that held it), at the place
 * where the message first left the head; every other version goes into its `versions`, oldest first. Every backend
 * writes an entry through `mergeEntries`, so a write never loses a version that an earlier write, a prune's backfill
 * or a reindex recorded.
 */
import { storedFormOfSerialized } from "../../messages/stored-form.js";
import { hasLeft } from "./transcript-items.js";
import type { RecallEntry, RecallVersion } from "./types.js";

/**
 * What tells a version apart: its stored form, or, for a version recorded before the transcript stored messages,
 * its text.
 */
export function versionForm(version: Pick<RecallVersion, "text" | "message">): string {
  return version.message === undefined ? `text:${version.text}` : storedFormOfSerialized(version.message);
}

/** The forms of every version an entry holds: its own and its `versions`'. */
export function versionForms(entry: Pick<RecallEntry, "text" | "message" | "versions">): string[] {
  return [versionForm(entry), ...(entry.versions ?? []).map(versionForm)];
}

/** An entry's own version (or a copy of a version). */
export const versionOf = ({ checkpointId, text, message }: RecallEntry | RecallVersion): RecallVersion => ({
  checkpointId,
  text,
  ...(message !== undefined ? { message } : {}),
});

/** `a` left the head (or was held) before `b`: an earlier checkpoint, or earlier in the same one. */
const earlier = (a: RecallEntry, b: RecallEntry) =>
  a.checkpointId === b.checkpointId ? a.ordinal < b.ordinal : a.checkpointId < b.checkpointId;

/**
 * One entry from the one recorded (`known`) and one written now (`entry`) for the same message. The same version: the
 * new one, at the place where the message first left (a message that left, came back with a restore and left again
 * stays where the conversation first had it). Another version: the newer of the two, at that place, the other one
 * among its versions.
 */
function merged(known: RecallEntry, entry: RecallEntry): RecallEntry {
  const knownForm = versionForm(known);
  const entryForm = versionForm(entry);
  const newer = knownForm === entryForm || !earlier(entry, known) ? entry : known;
  const newerForm = newer === entry ? entryForm : knownForm;
  const other = newer === entry ? known : entry;
  const versions = new Map<string, RecallVersion>();
  for (const version of [
    ...(known.versions ?? []),
    ...(entry.versions ?? []),
    ...(knownForm === entryForm ? [] : [versionOf(other)]),
  ]) {
    const form = versionForm(version);
    if (form !== newerForm && !versions.has(form)) versions.set(form, version);
  }
  const place = hasLeft(known) && (!hasLeft(newer) || earlier(known, newer)) ? known : newer;
  const { previousId: _previousId, versions: _versions, ...rest } = newer;
  return {
    ...rest,
    checkpointId: place.checkpointId,
    ordinal: place.ordinal,
    ...(place.previousId ? { previousId: place.previousId } : {}),
    ...(versions.size > 0
      ? {
          versions: [...versions.values()].sort((a, b) =>
            a.checkpointId < b.checkpointId ? -1 : a.checkpointId > b.checkpointId ? 1 : 0,
          ),
        }
      : {}),
  };
}

/**
 * The entries a write leaves for `add` over what the index holds (`indexed`, by message id): one per message, in the
 * order of `add`, each merged with what was recorded before it (several entries of one message in `add` — versions a
 * prune backfills — fold in order).
 */
export function mergeEntries(add: readonly RecallEntry[], indexed: ReadonlyMap<string, RecallEntry>): RecallEntry[] {
  const result = new Map<string, RecallEntry>();
  for (const entry of add) {
    const known = result.get(entry.messageId) ?? indexed.get(entry.messageId);
    result.set(entry.messageId, known ? merged(known, entry) : entry);
  }
  return [...result.values()];
}
