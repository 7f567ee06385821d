/**
 * The listeners an entry point takes (onCompaction, onCompactionError, …): each one absent or a function; the
 * options its type leaves out, refused at run time too (a caller without types, a cast); and any option it does not
 * know (a misspelling): never silently ignored.
 */
import { CompactionError, describeValue, invalidArgument } from "./errors.js";

/** @throws CompactionError INVALID_ARGUMENT naming the first listener that is given and is not a function. */
export function validateHooks<T extends object>(options: T, hooks: ReadonlyArray<keyof T & string>): void {
  for (const hook of hooks) {
    if (options[hook] !== undefined && typeof options[hook] !== "function")
      throw invalidArgument(hook, options[hook], "a function");
  }
}

/**
 * @throws CompactionError INVALID_ARGUMENT naming the first option of `notTaken` (key → why `runtime` has no use for
 * it) that `options` gives.
 */
export function refuseNotTaken(runtime: string, options: object, notTaken: Readonly<Record<string, string>>): void {
  for (const [key, why] of Object.entries(notTaken)) {
    const value = (options as Record<string, unknown>)[key];
    if (value !== undefined) throw invalidArgument(key, value, `left out of ${runtime}: ${why}`);
  }
}

/**
 * The options an entry point takes, as a table its options type checks (`satisfies Record<keyof Options, true>`: the
 * compiler keeps the table and the type in step).
 */
export type KnownOptions = Readonly<Record<string, true>>;

/**
 * @throws CompactionError INVALID_ARGUMENT naming the first option `options` gives that `runtime` does not take,
 *   with the known option it is closest to when one is one or two edits away.
 */
export function refuseUnknown(runtime: string, options: object, known: KnownOptions): void {
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || Object.hasOwn(known, key)) continue;
    const near = Object.keys(known).find((name) => editDistance(name.toLowerCase(), key.toLowerCase()) <= 2);
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: key,
      value,
      message: `no option "${key}" in ${runtime}${near ? ` (did you mean "${near}"?)` : ""}; got ${describeValue(value)}. docs/options.md lists the options of each runtime.`,
    });
  }
}

/** Levenshtein distance, for the suggestion only. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
