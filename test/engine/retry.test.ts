/**
 * The one retry loop of the library's writes (src/engine/retry.ts): a lost race is tried again at once up to the
 * attempts allowed, a busy head after a pause until the wait allowed is over; the last try's value is the result.
 */
import { describe, expect, it } from "vitest";
import { retrying, type Attempt } from "../../src/engine/retry.js";

/** An attempt that answers `script`'s outcomes in turn, noting each try's number. */
function scripted(script: Array<"done" | "again" | "wait">, tries: number[]) {
  return async (number: number): Promise<Attempt<string>> => {
    tries.push(number);
    const kind = script[number - 1] ?? "done";
    return kind === "done"
      ? { done: `done at ${number}` }
      : kind === "again"
        ? { again: `lost at ${number}` }
        : { wait: `busy at ${number}` };
  };
}

describe("retrying", () => {
  it("tries a lost race again at once, up to the attempts allowed", async () => {
    const tries: number[] = [];
    expect(await retrying({ attempts: 3 }, scripted(["again", "again", "done"], tries))).toBe("done at 3");
    expect(await retrying({ attempts: 3 }, scripted(["again", "again", "again", "done"], []))).toBe("lost at 3");
    expect(tries).toEqual([1, 2, 3]);
  });

  it("waits for a busy head while the wait allowed lasts, and never without one", async () => {
    expect(await retrying({ attempts: 1 }, scripted(["wait", "done"], []))).toBe("busy at 1");
    const tries: number[] = [];
    expect(await retrying({ attempts: 1, waitMs: 60_000 }, scripted(["wait", "wait", "done"], tries))).toBe(
      "done at 3",
    );
    expect(tries).toEqual([1, 2, 3]);
  });

  it("counts a wait among the tries a lost race has", async () => {
    expect(await retrying({ attempts: 2, waitMs: 60_000 }, scripted(["wait", "again", "done"], []))).toBe("lost at 2");
  });
});
