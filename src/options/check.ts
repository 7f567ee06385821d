/**
 * Where a value a caller gave is checked against its rule (rules.ts) and, when it fails, refused: an INVALID_ARGUMENT
 * naming the option as the caller spelled it, the value as given and what it must be. Options are parsed here once,
 * at construction (`parseOptions`: an option the runtime does not know is refused too, with the known one it is
 * closest to); a public function's arguments through `argument`.
 */
import { z } from "zod";
import { CompactionError, describeValue, invalidArgument } from "../errors.js";
import type { Rule } from "./rules.js";

/** The value, when `rule` accepts it. @throws CompactionError INVALID_ARGUMENT naming `name` and the value. */
export function argument<T>(name: string, value: unknown, rule: Rule<T>): T {
  const parsed = rule.safeParse(value);
  if (parsed.success) return parsed.data;
  throw refusal(parsed.error.issues, value, () => name);
}

/**
 * The number a setting typed as text spells ("4_000" and "4000" alike), when `rule` accepts it.
 * @throws CompactionError INVALID_ARGUMENT naming `name` and the text as typed.
 */
export function numberArgument(name: string, raw: string, rule: Rule<number>): number {
  const parsed = rule.safeParse(raw.trim() === "" ? Number.NaN : Number(raw.replace(/_/g, "")));
  if (parsed.success) return parsed.data;
  throw refusal(parsed.error.issues, raw, () => name);
}

/** The fields of an option object: each option's rule (an option not given is not checked). */
export type Fields = Readonly<Record<string, Rule>>;

/**
 * `options` checked against `schema` — a strict zod object, or the fields of one — for `runtime` (named in the
 * refusal of an option it does not know); `name` spells an option as the caller gave it (a variable of `env`, a flag
 * of the script). An option given as `undefined` is taken as not given.
 * @throws CompactionError INVALID_ARGUMENT naming the first option that is unknown or breaks its rule.
 */
export function parseOptions<T extends object>(
  runtime: string,
  schema: z.ZodObject | Fields,
  options: T,
  name: (key: string) => string = (key) => key,
): T {
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw invalidArgument("options", options, `an object of ${runtime}'s options`);
  const shape: Fields = schema instanceof z.ZodObject ? (schema.shape as Fields) : schema;
  const unknown = Object.keys(options).find(
    (key) => !Object.hasOwn(shape, key) && (options as Record<string, unknown>)[key] !== undefined,
  );
  if (unknown !== undefined)
    throw unknownOption(runtime, unknown, (options as Record<string, unknown>)[unknown], shape);
  const strict = z.object(Object.fromEntries(Object.entries(shape).map(([key, rule]) => [key, rule.optional()])));
  const parsed = strict.safeParse(options);
  if (!parsed.success) throw refusal(parsed.error.issues, options, name);
  return options;
}

function unknownOption(runtime: string, key: string, value: unknown, fields: Fields): CompactionError {
  const near = Object.keys(fields).find((known) => editDistance(known.toLowerCase(), key.toLowerCase()) <= 2);
  return new CompactionError({
    code: "INVALID_ARGUMENT",
    parameter: key,
    value,
    message: `no option "${key}" in ${runtime}${near ? ` (did you mean "${near}"?)` : ""}; got ${describeValue(value)}. docs/options.md lists the options of each runtime.`,
  });
}

/** The first issue as a refusal: the path under the root named as the caller spells it, the value found there. */
function refusal(issues: readonly z.core.$ZodIssue[], root: unknown, name: (key: string) => string): CompactionError {
  const issue = deepest(issues[0]!);
  const [first, ...rest] = issue.path;
  const parameter =
    (first === undefined ? name("") : name(String(first))) +
    rest.map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`)).join("");
  let value: unknown = root;
  for (const key of issue.path) value = (value as Record<PropertyKey, unknown> | undefined)?.[key];
  return invalidArgument(parameter, value, issue.message);
}

/** Within a union that failed, the issue of the branch that got furthest (an object whose field broke its rule). */
function deepest(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return issue;
  const inner = issue.errors
    .map((branch) => branch[0])
    .filter((first): first is z.core.$ZodIssue => first !== undefined && first.path.length > 0)
    .sort((a, b) => b.path.length - a.path.length)[0];
  return inner ? deepest({ ...inner, path: [...issue.path, ...inner.path] }) : issue;
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
