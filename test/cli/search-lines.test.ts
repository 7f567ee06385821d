/**
 * The script's search output says why a hit matched when its own text holds no word of the query (a message is found
 * by the words of the one before it too), and never prints a score that reads as nothing (0.00).
 */
import { expect, it } from "vitest";
import { searchLines } from "../../src/cli/search-output.js";
import type { SearchHit } from "../../src/store/recall-index/types.js";

const hit = (messageId: string, text: string, score: number): SearchHit => ({
  messageId,
  role: "assistant",
  text,
  checkpointId: "1f0-a",
  score,
  before: [],
  after: [],
});

it("a hit found by the message before it says so, and a small score shows its digits", () => {
  const lines = searchLines(
    [
      hit("question", "Can the parcel go through Rotterdam instead of Antwerp?", 2.41),
      hit("answer", "Yes: the carrier confirmed the new route for Tuesday.", 0.0031),
    ],
    "Rotterdam",
  );
  expect(lines).toContain("1. assistant  (score 2.41)");
  expect(lines).toContain("2. assistant  (score 0.0031, by the words of the message before it)");
  expect(lines.join("\n")).not.toMatch(/score 0\.00\)/);
});
