/**
 * Bounding the tokenizer's work.
 *
 * BPE merges inside one pre-token are super-linear in its length. Ordinary text is made of short pre-tokens, but a
 * tool output can hold a single pre-token thousands of characters long (a run of spaces, CJK text without
 * punctuation, a line of `=====`); measured on this machine, js-tiktoken takes 13 s on 10,000 spaces and 98 s on
 * 10,000 CJK characters. So text is counted in pieces:
 *
 * 1. It is cut into segments of at most `segmentLength` characters, each cut placed just before a space that follows
 *    a non-space, or else between an ASCII letter and an ASCII digit. The o200k and cl100k pre-tokenizers never put
 *    such a pair into one pre-token, so these cuts are exact: the sum over segments equals the count of the whole text.
 * 2. A stretch with no such cut point, or one holding a candidate long pre-token (a run of `maxRunLength` letters,
 *    whitespace or punctuation), is pre-tokenized with the encoding's own pattern and regrouped into segments of
 *    whole pre-tokens (still exact).
 * 3. Only a single pre-token longer than `maxRunLength` is cut blindly into `maxRunLength`-character pieces. This is
 *    the one inexact step. Error bound: each blind cut can change the count by at most a few tokens (measured: at most 1 for runs of
 *    spaces, CJK, letters and punctuation), so an unbroken run of n characters is off by at most ceil(n / maxRunLength) tokens,
 *    well under 1% at the default of 128 characters; text without such runs is counted exactly.
 *
 * The work per engine call is then bounded by segmentLength x maxRunLength, and a megabyte of any input counts in
 * well under a second with the default engine (`npm run bench` shows the figures).
 */

import type { EncodingName } from "./models.js";

export interface SplitOptions {
  /** Longest segment handed to the engine in one call. @default 4096 */
  segmentLength?: number;
  /** Longest single pre-token counted whole; longer ones are cut blindly. @default 128 */
  maxRunLength?: number;
}

export const DEFAULT_SEGMENT_LENGTH = 4096;
export const DEFAULT_MAX_RUN_LENGTH = 128;

// The pre-tokenizer patterns of the two encodings (as published by OpenAI's tiktoken).
const CONTRACTIONS = String.raw`(?:'s|'t|'re|'ve|'m|'ll|'d)`;
const PRETOKEN_PATTERNS: Record<EncodingName, string> = {
  cl100k_base:
    String.raw`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`.replace(
      "(?i:'s|'t|'re|'ve|'m|'ll|'d)",
      "'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])",
    ),
  o200k_base: String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+${CONTRACTIONS}?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*${CONTRACTIONS}?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
};

const WHITESPACE = 1;
const LETTER = 2;
const PUNCTUATION = 4;

/** Character classes as bits; non-ASCII characters count as both letters and punctuation (a cheap superset). */
function classOf(code: number): number {
  if (code < 128) {
    if (code === 32 || (code >= 9 && code <= 13)) return WHITESPACE;
    if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) return LETTER;
    return code >= 48 && code <= 57 ? 0 : PUNCTUATION;
  }
  return isWhitespace(code) ? WHITESPACE : LETTER | PUNCTUATION;
}

/**
 * True when `text` may hold a pre-token longer than `maxRunLength`: a run of more than `maxRunLength` characters
 * sharing a class (whitespace, letters, punctuation; digits break letter runs, as in both encodings).
 *
 * Such a run always contains a whole window between two samples taken `maxRunLength / 2` apart, so only those
 * windows are examined, each scanned backward until a character breaks every class the two ends share — within a
 * few characters in ordinary text. A window that holds together is measured exactly. This runs on every segment,
 * so it reads a small fraction of the text instead of every character.
 */
export function mayHoldLongRun(text: string, maxRunLength: number): boolean {
  const length = text.length;
  if (length <= maxRunLength) return false;
  const step = Math.max(1, maxRunLength >> 1);
  for (let start = 0; start + step < length; start += step) {
    let common = classOf(text.charCodeAt(start)) & classOf(text.charCodeAt(start + step));
    for (let index = start + step - 1; common !== 0 && index > start; index--)
      common &= classOf(text.charCodeAt(index));
    if (common === 0) continue;
    for (const bit of [WHITESPACE, LETTER, PUNCTUATION]) {
      if ((common & bit) === 0) continue;
      let first = start;
      while (first > 0 && (classOf(text.charCodeAt(first - 1)) & bit) !== 0) first--;
      let last = start + step;
      while (last + 1 < length && (classOf(text.charCodeAt(last + 1)) & bit) !== 0) last++;
      if (last - first + 1 > maxRunLength) return true;
    }
  }
  return false;
}

function isWhitespace(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    code === 0xa0 ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x3000 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x1680 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0xfeff ||
    code === 0x85
  );
}

/** A cut just before `text[index]` is exact when it is a space that follows a non-space. */
function isExactCut(text: string, index: number): boolean {
  return text.charCodeAt(index) === 32 && index > 0 && !isWhitespace(text.charCodeAt(index - 1));
}

function isAsciiLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isAsciiDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * A cut between an ASCII letter and an ASCII digit (either order) is exact too: letter pre-tokens never hold digits,
 * and a digit run is grouped in threes from its own start, which the cut does not move. This gives base64 blobs, hashes
 * and identifiers without spaces exact cut points.
 */
function isLetterDigitCut(text: string, index: number): boolean {
  const before = text.charCodeAt(index - 1);
  const after = text.charCodeAt(index);
  return (isAsciiLetter(before) && isAsciiDigit(after)) || (isAsciiDigit(before) && isAsciiLetter(after));
}

function lastExactCut(text: string, from: number, before: number): number {
  let index = text.lastIndexOf(" ", before);
  while (index > from) {
    if (isExactCut(text, index)) return index;
    index = text.lastIndexOf(" ", index - 1);
  }
  for (let candidate = before; candidate > from + 1; candidate--) {
    if (isLetterDigitCut(text, candidate)) return candidate;
  }
  return -1;
}

function nextExactCut(text: string, after: number): number {
  let index = text.indexOf(" ", after);
  while (index >= 0) {
    if (isExactCut(text, index)) return index;
    index = text.indexOf(" ", index + 1);
  }
  return -1;
}

/**
 * Count `text` with `count` (one engine call per bounded piece), following the three steps above.
 */
export function countBounded(
  text: string,
  encoding: EncodingName,
  count: (piece: string) => number,
  { segmentLength = DEFAULT_SEGMENT_LENGTH, maxRunLength = DEFAULT_MAX_RUN_LENGTH }: SplitOptions = {},
): number {
  if (text.length <= maxRunLength) return count(text);
  if (text.length <= segmentLength && !mayHoldLongRun(text, maxRunLength)) return count(text);

  let total = 0;
  let position = 0;
  while (position < text.length) {
    const remaining = text.length - position;
    let end: number;
    if (remaining <= segmentLength) {
      end = text.length;
    } else {
      const cut = lastExactCut(text, position, position + segmentLength);
      end = cut > position ? cut : nextExactCut(text, position + segmentLength);
      if (end < 0) end = text.length;
    }
    const segment = text.slice(position, end);
    if (segment.length <= segmentLength && !mayHoldLongRun(segment, maxRunLength)) {
      total += count(segment);
    } else {
      total += countByPretokens(segment, encoding, count, segmentLength, maxRunLength);
    }
    position = end;
  }
  return total;
}

const pretokenRegexes = new Map<EncodingName, RegExp>();
function getPretokenRegex(encoding: EncodingName): RegExp {
  let regex = pretokenRegexes.get(encoding);
  if (!regex) {
    regex = new RegExp(PRETOKEN_PATTERNS[encoding], "gu");
    pretokenRegexes.set(encoding, regex);
  }
  return regex;
}

/** Steps 2 and 3: regroup whole pre-tokens into bounded segments; cut only over-long single pre-tokens. */
function countByPretokens(
  text: string,
  encoding: EncodingName,
  count: (piece: string) => number,
  segmentLength: number,
  maxRunLength: number,
): number {
  const regex = getPretokenRegex(encoding);
  regex.lastIndex = 0;
  let total = 0;
  let groupStart = 0;
  let groupEnd = 0;
  const flush = () => {
    if (groupEnd > groupStart) total += count(text.slice(groupStart, groupEnd));
  };
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    const start = match.index;
    const pretoken = match[0];
    if (pretoken.length === 0) {
      regex.lastIndex++;
      continue;
    }
    const end = start + pretoken.length;
    if (pretoken.length > maxRunLength) {
      flush();
      for (let offset = 0; offset < pretoken.length; offset += maxRunLength) {
        total += count(pretoken.slice(offset, offset + maxRunLength));
      }
      groupStart = groupEnd = end;
      continue;
    }
    if (end - groupStart > segmentLength) {
      flush();
      groupStart = start;
    }
    groupEnd = end;
  }
  flush();
  return total;
}
