/**
 * The rules options and arguments are checked by: each a zod schema whose every failure says one expectation
 * ("an integer >= 1"), so a value is refused with the same words whichever runtime, function or flag it came
 * through. The option schemas (engine/options.ts and each runtime's) and the call-time checks of public functions
 * (check.ts `argument`) are made of these.
 */
import { z } from "zod";

/** A rule: a schema, its failures said as one expectation. */
export type Rule<T = unknown> = z.ZodType<T, T>;

/** An integer from `min` (to `max`). */
export function integer(min: number, { max, says }: { max?: number; says?: string } = {}): Rule<number> {
  const error = says ?? (max === undefined ? `an integer >= ${min}` : `an integer from ${min} to ${max}`);
  const rule = z.int({ error }).min(min, { error });
  return max === undefined ? rule : rule.max(max, { error });
}

/** A finite number within the bounds given (`above`/`below` exclusive, `from`/`to` inclusive). */
export function number(
  says: string,
  { above, below, from, to }: { above?: number; below?: number; from?: number; to?: number } = {},
): Rule<number> {
  let rule = z.number({ error: says });
  if (above !== undefined) rule = rule.gt(above, { error: says });
  if (below !== undefined) rule = rule.lt(below, { error: says });
  if (from !== undefined) rule = rule.gte(from, { error: says });
  if (to !== undefined) rule = rule.lte(to, { error: says });
  return rule;
}

/** A share strictly between 0 and 1 (`compactionRatio`, `--ratio`, COMPACTION_RATIO). */
export const RATIO_RULE = "a number between 0 and 1 (exclusive), e.g. 0.5";
export const ratio = number(RATIO_RULE, { above: 0, below: 1 });

/** A number of milliseconds >= 0. */
export const milliseconds = number("a number of milliseconds >= 0", { from: 0 });

/** true or false. */
export const flag = z.boolean({ error: "true or false" });

/** A string with something in it. */
export function text(says = "a non-empty string"): Rule<string> {
  return z.string({ error: says }).refine((value) => value.trim() !== "", { error: says });
}

/** One of `values`. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, says: string): Rule<T[number]> {
  return z.enum(values, { error: says });
}

/** A function (a listener, a predicate, a clock). */
export function fn(says = "a function"): Rule<(...args: never[]) => unknown> {
  return z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", { error: says });
}

/** An object (no array) that has each of `methods`. */
export function withMethods(methods: readonly string[], says: string): Rule<object> {
  return z.custom<object>(
    (value) =>
      typeof value === "object" &&
      value !== null &&
      methods.every((method) => typeof (value as Record<string, unknown>)[method] === "function"),
    { error: says },
  );
}

/** A plain object (no array, no null). */
export function record(says: string): Rule<Record<string, unknown>> {
  return z.custom<Record<string, unknown>>(
    (value) => typeof value === "object" && value !== null && !Array.isArray(value),
    { error: says },
  );
}

/** Any value `test` accepts. */
export function satisfying<T = unknown>(test: (value: unknown) => boolean, says: string): Rule<T> {
  return z.custom<T>(test, { error: says });
}

/** Nothing: an option left out (`says` why: another option sets it, or the runtime has no use for it). */
export function absent(says: string): Rule<undefined> {
  return z.undefined({ error: says });
}

/** An array, its items not looked at (a history of thousands of messages is checked in constant time). */
export function array(says: string): Rule<unknown[]> {
  return z.custom<unknown[]>((value) => Array.isArray(value), { error: says });
}

/** No value: for a value refused by what code found about it (too small once resolved, not usable here). */
export function never(says: string): Rule<never> {
  return z.never({ error: says });
}

/** A list of what `item` accepts. */
export function listOf<T>(item: Rule<T>, says: string, { min = 0 }: { min?: number } = {}): Rule<T[]> {
  return z.array(item, { error: says }).min(min, { error: says });
}

/** A Postgres text search configuration name (passed as a regconfig value): `recall.language`, `--language`. */
export const language = satisfying<string>(
  (value) => typeof value === "string" && /^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(value),
  'a Postgres text search configuration such as "simple" or "english"',
);
