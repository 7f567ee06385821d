/**
 * The marker of an edited message. A strategy that clears or clips a message (or the archive, which moves its text
 * into a store) replaces it by a new message with the same id, and records what it did in
 * `additional_kwargs.compaction_edit`; the original stays in the checkpoint history.
 */

export const EDIT_KEY = "compaction_edit";

export interface EditRecord {
  strategy: string;
  /** "cleared", "clipped", "archived" */
  action: string;
  originalTokens: number;
  originalLines: number;
  originalChars: number;
}

/** The edit recorded on `message`, or undefined for a message as it was written. */
export function editOf(message: { additional_kwargs?: unknown }): EditRecord | undefined {
  const record = (message.additional_kwargs as Record<string, unknown> | undefined)?.[EDIT_KEY];
  return typeof record === "object" && record !== null ? (record as EditRecord) : undefined;
}
