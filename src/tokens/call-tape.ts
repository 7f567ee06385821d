import { VERBATIM_LIMIT } from "./fingerprint.js";

// A tool call's counted parts are kept as a flat "tape" (one array read front to back) rather than a copy of the
// objects: after a checkpoint reload the cached side of every check is cold in the CPU's caches, and reading one
// array instead of a tree of small objects made the check of 550 tool calls about twice as fast (measured).
const OBJECT = Symbol("object");
const ARRAY = Symbol("array");

function record(tape: unknown[], json: unknown): void {
  if (Array.isArray(json)) {
    tape.push(ARRAY, json.length);
    for (const item of json) record(tape, item);
  } else if (typeof json === "object" && json !== null) {
    const keys = Object.keys(json);
    tape.push(OBJECT, keys.length);
    for (const key of keys) {
      tape.push(key);
      record(tape, (json as Record<string, unknown>)[key]);
    }
  } else {
    tape.push(json);
  }
}

/** The counted parts of short tool calls (count, then each name and arguments), as a tape of their JSON. */
export function countedCalls(toolCalls: unknown, json: string): unknown[] | undefined {
  if (json === "" || json.length > VERBATIM_LIMIT || !Array.isArray(toolCalls)) return undefined;
  const parsed = JSON.parse(
    JSON.stringify(
      toolCalls.map((call: { name?: unknown; args?: unknown } | null) => ({ name: call?.name, args: call?.args })),
    ),
  ) as Array<{ name?: unknown; args?: unknown }>;
  const tape: unknown[] = [parsed.length];
  for (const call of parsed) {
    tape.push(call.name);
    record(tape, call.args);
  }
  return tape;
}

/**
 * Reads `value` against the tape from `at`: the position after it when `value` serializes to the same JSON as what
 * was recorded there, else -1. Conservative: anything that is not plain data (a toJSON, a class instance, an
 * undefined member) answers -1, which only costs a recount.
 */
export function replay(tape: unknown[], at: number, value: unknown): number {
  const kept = tape[at];
  if (kept === ARRAY) {
    if (!Array.isArray(value) || value.length !== tape[at + 1]) return -1;
    let next = at + 2;
    for (let index = 0; index < value.length && next >= 0; index++) next = replay(tape, next, value[index]);
    return next;
  }
  if (kept === OBJECT) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return -1;
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) return -1;
    const count = tape[at + 1] as number;
    let next = at + 2;
    let seen = 0;
    for (const key in value) {
      if (seen++ === count || tape[next] !== key) return -1;
      next = replay(tape, next + 1, (value as Record<string, unknown>)[key]);
      if (next < 0) return -1;
    }
    return seen === count ? next : -1;
  }
  return kept === value ? at + 1 : -1;
}
