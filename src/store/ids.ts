import { uuid6 } from "@langchain/langgraph-checkpoint";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The id of a checkpoint that replaces `headId`: the smallest id that sorts after it.
 *
 * "Latest" is the highest id, so the replacement must sort after the head it replaces. Taking the very next id,
 * rather than a fresh `uuid6()`, matters under concurrency: any checkpoint another writer creates after the head
 * was written sorts after the replacement, even if it is committed later — so a concurrent turn supersedes the
 * compaction (which is simply redone later) instead of being hidden behind it.
 */
export function idAfter(headId: string, step: number): string {
  if (UUID.test(headId)) {
    const hex = headId.replace(/-/g, "");
    const node = BigInt(`0x${hex.slice(20)}`) + 1n;
    if (node < 1n << 48n) {
      const next = `${hex.slice(0, 20)}${node.toString(16).padStart(12, "0")}`;
      return `${next.slice(0, 8)}-${next.slice(8, 12)}-${next.slice(12, 16)}-${next.slice(16, 20)}-${next.slice(20)}`;
    }
  }
  const fresh = uuid6(step);
  if (fresh > headId) return fresh;
  return `${headId}~`; // a non-UUID head id that sorts after every uuid: keep the order
}
