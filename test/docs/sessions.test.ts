/**
 * Figures in the docs come from a command the page names: every recorded session (scripts/docs/sessions.ts) is
 * replayed as printed — the demo, then the script on the thread it wrote — and must print what the page shows,
 * checkpoint ids aside. `npm run docs:sessions` records them again after a change that moves a figure.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { comparable, replay, ROOT, sessionPages, sessionsOf, withSessions } from "../../scripts/docs/sessions.js";

const sessions = sessionPages().flatMap((page) => sessionsOf(page, readFileSync(join(ROOT, page), "utf8")));

describe("the sessions the docs quote", () => {
  it("finds the sessions of script.md and recall.md, and records a block in place", () => {
    expect(sessions.map((session) => `${session.page}:${session.name}`)).toEqual(expect.arrayContaining(["docs/script.md:history", "docs/script.md:report", "docs/recall.md:prune"]));
    const page = "a\n<!-- session:x -->\n```\n$ echo old\nold\n```\n<!-- /session:x -->\nb\n";
    expect(withSessions(page, { x: "```\n$ echo new\nnew\n```\n" })).toBe("a\n<!-- session:x -->\n```\n$ echo new\nnew\n```\n<!-- /session:x -->\nb\n");
    expect(comparable("head 1f1e9392-0c03-60b0-8079-8d0b6db3ddba, run-01a2157a-ca86-760f-bc61-9254aa64830d")).toBe("head <id>, run-<id>");
  });

  it.each(sessions.map((session) => [`${session.page} ${session.name}`, session] as const))("%s prints what the page shows", async (_, session) => {
    expect(comparable(await replay(session))).toBe(comparable(session.text));
  }, 180_000);
});
