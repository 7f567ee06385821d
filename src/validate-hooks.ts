/**
 * The listeners an entry point takes (onCompaction, onCompactionError, …): each one absent or a function; and the
 * options its type leaves out, refused at run time too (a caller without types, a cast): never silently ignored.
 */
import { invalidArgument } from "./errors.js";

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
