/** The listeners an entry point takes (onCompaction, onCompactionError, …): each one absent or a function. */
import { invalidArgument } from "./errors.js";

/** @throws CompactionError INVALID_ARGUMENT naming the first listener that is given and is not a function. */
export function validateHooks<T extends object>(options: T, hooks: ReadonlyArray<keyof T & string>): void {
  for (const hook of hooks) {
    if (options[hook] !== undefined && typeof options[hook] !== "function") throw invalidArgument(hook, options[hook], "a function");
  }
}
