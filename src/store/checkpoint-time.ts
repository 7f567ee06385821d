/**
 * When a checkpoint was written, read from its id: LangGraph ids checkpoints with UUID version 6, whose first 60
 * bits are the time in 100 ns steps since 1582-10-15 (RFC 9562), so ids sort by time and a worker tells an idle
 * thread from its head's id alone, reading no checkpoint.
 */

/** 100 ns steps between 1582-10-15 (the UUID epoch) and 1970-01-01. */
const GREGORIAN_OFFSET = 122_192_928_000_000_000n;

/** Milliseconds since 1970 at which the checkpoint `id` was made, or undefined for an id that is not a UUIDv6. */
export function checkpointTime(id: string): number | undefined {
  const match = /^([0-9a-f]{8})-([0-9a-f]{4})-6([0-9a-f]{3})-[0-9a-f]{4}-[0-9a-f]{12}$/i.exec(id);
  if (!match) return undefined;
  const steps = (BigInt(`0x${match[1]}`) << 28n) | (BigInt(`0x${match[2]}`) << 12n) | BigInt(`0x${match[3]}`);
  return Number((steps - GREGORIAN_OFFSET) / 10_000n);
}

/** The lowest UUIDv6 checkpoint id made at `ms` (milliseconds since 1970): every id made then or later sorts after it. */
export function checkpointIdAt(ms: number): string {
  const steps = BigInt(Math.max(0, Math.floor(ms))) * 10_000n + GREGORIAN_OFFSET;
  const high = (steps >> 28n).toString(16).padStart(8, "0");
  const mid = ((steps >> 12n) & 0xffffn).toString(16).padStart(4, "0");
  const low = (steps & 0xfffn).toString(16).padStart(3, "0");
  return `${high}-${mid}-6${low}-0000-000000000000`;
}
