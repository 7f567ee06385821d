/**
 * Long texts kept by the token cache as a fingerprint instead of a copy: their length and two independent 53-bit
 * hashes, so a few huge messages cannot hold megabytes alive while a changed text still misses.
 */

/**
 * Texts longer than this are kept as a fingerprint, not verbatim. Shorter ones are compared as strings (a memcmp),
 * which is what keeps the check of a reloaded thread cheap: a 1 KiB limit hashed 214 of 2,000 messages again on
 * every reload (2.7 ms per count, `npm run bench:tokens`).
 */
export const VERBATIM_LIMIT = 16 * 1_024;

// cyrb53: a fast, well-mixed 53-bit string hash (public domain), for messages that have no id.
export function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

const FINGERPRINT = "\u0000fingerprint:";

/** The text itself when short, else a fingerprint: its length and two independent 53-bit hashes. */
export function compact(text: string): string {
  if (text.length <= VERBATIM_LIMIT) return text;
  return `${FINGERPRINT}${text.length}:${hash53(text)}:${hash53(text, 0x9e3779b9)}`;
}

/** `text` is what `kept` (a compact()ed text) was made from; hashes only when the lengths already agree. */
export function sameText(kept: string, text: string): boolean {
  if (text.length <= VERBATIM_LIMIT) return kept === text;
  return kept.startsWith(`${FINGERPRINT}${text.length}:`) && kept === compact(text);
}
