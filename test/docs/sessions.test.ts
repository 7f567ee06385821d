/**
 * Figures in the docs come from a command the page names: recorded sessions (scripts/docs/sessions.ts), which
 * `npm run check:docs` replays in .ci/run and `npm run docs:sessions` records again. Here: the pages hold their
 * sessions, and a block is found, recorded in place and compared as the check compares it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { comparable, ROOT, sameSession, sessionPages, sessionsOf, withSessions } from "../../scripts/docs/sessions.js";

const sessions = sessionPages().flatMap((page) => sessionsOf(page, readFileSync(join(ROOT, page), "utf8")));

describe("the sessions the docs quote", () => {
  it("script.md's and recall.md's figures are recorded sessions, each starting from the demo", () => {
    expect(sessions.map((session) => `${session.page}:${session.name}`)).toEqual(
      expect.arrayContaining(["docs/script.md:history", "docs/script.md:report", "docs/recall.md:prune"]),
    );
    for (const session of sessions) expect(session.commands[0], session.name).toMatch(/npm start/);
  });

  it("records a block in place, and compares with the run's time taken out", () => {
    const page = "a\n<!-- session:x -->\n```\n$ echo old\nold\n```\n<!-- /session:x -->\nb\n";
    expect(withSessions(page, { x: "```\n$ echo new\nnew\n```\n" })).toBe(
      "a\n<!-- session:x -->\n```\n$ echo new\nnew\n```\n<!-- /session:x -->\nb\n",
    );
    expect(comparable("head 1f1e9392-0c03-60b0-8079-8d0b6db3ddba, run-01a2157a-ca86-760f-bc61-9254aa64830d")).toBe(
      "head <id>, run-<id>",
    );
    expect(sameSession("3 compaction(s)", "4 compaction(s)")).toBe(false);
    // Byte counts move with the timings in a checkpoint's metadata: within 1%, the same session.
    const storage = (checkpoints: string, writes: string) =>
      `storage: 83 checkpoints, ${checkpoints} bytes of checkpoints, ${writes} of pending writes`;
    expect(sameSession(storage("3,096,077", "1,017,211"), storage("3,094,375", "1,016,607"))).toBe(true);
    expect(sameSession(storage("3,096,077", "1,017,211"), storage("3,496,077", "1,016,607"))).toBe(false);
  });
});
