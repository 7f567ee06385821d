/** "Did you mean …?" for a mistyped command or option: the closest candidate within a small edit distance. */

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate closest to `word` (at most 2 edits, and fewer than half its length), or undefined. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; edits: number } | undefined;
  for (const candidate of candidates) {
    const edits = distance(word.toLowerCase(), candidate.toLowerCase());
    if (edits <= 2 && edits < Math.max(2, candidate.length / 2) && (!best || edits < best.edits))
      best = { candidate, edits };
  }
  return best?.candidate;
}

/** " Did you mean X?" or "". */
export function didYouMean(
  word: string,
  candidates: readonly string[],
  render = (candidate: string) => candidate,
): string {
  const match = closest(word, candidates);
  return match ? ` Did you mean ${render(match)}?` : "";
}
