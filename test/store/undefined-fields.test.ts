/**
 * A field holding LangChain's `undefined` is left out of a stored list before it is compared with another
 * (store/prune-tables.ts): the process's rule and the pattern Postgres applies agree, and nothing else is touched.
 */
import { describe, expect, it } from "vitest";
import { UNDEFINED_FIELD, withoutUndefinedFields } from "../../src/store/prune-tables.js";

const U = '{"lc":2,"type":"undefined"}';
const cases: Array<[string, string]> = [
  [`[{"kwargs":{"content":"a","name":${U},"id":"1"}}]`, `[{"kwargs":{"content":"a","id":"1"}}]`],
  [`[{"kwargs":{"name":${U},"content":"a"}}]`, `[{"kwargs":{"content":"a"}}]`],
  [`[{"kwargs":{"content":"a","name":${U}}}]`, `[{"kwargs":{"content":"a"}}]`],
  [`[{"kwargs":{"name":${U}}}]`, `[{"kwargs":{}}]`],
  [`[{"a":${U},"b":${U},"c":1}]`, `[{"c":1}]`],
  // Text that spells the marker inside a message is escaped, and stays.
  [
    `[{"content":"say \\"name\\":${U.replace(/"/g, '\\"')}"}]`,
    `[{"content":"say \\"name\\":${U.replace(/"/g, '\\"')}"}]`,
  ],
  [`[{"content":"ends with a comma,","name":${U}}]`, `[{"content":"ends with a comma,"}]`],
];

describe("withoutUndefinedFields", () => {
  for (const [stored, expected] of cases) {
    it(`${stored.slice(0, 60)}…`, () => {
      expect(withoutUndefinedFields(stored)).toBe(expected);
      expect(stored.replace(new RegExp(UNDEFINED_FIELD.source, "g"), "")).toBe(expected);
      if (!stored.includes("\\")) expect(JSON.parse(withoutUndefinedFields(stored))).toBeTruthy();
    });
  }
  it("keeps a marker that is not a field's value (an element of a list)", () => {
    expect(withoutUndefinedFields(`[1,${U},2]`)).toBe(`[1,${U},2]`);
  });
});
