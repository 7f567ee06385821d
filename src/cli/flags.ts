/** The script's numeric flags, read from their text as typed (the raw text in the error). */
import { invalidArgument } from "../errors.js";
import { validateKeep } from "../engine/prune.js";

/** The --keep flag: the newest checkpoints kept, the head among them (the raw text in the error, as typed). */
export function keepFlag(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const keep = Number(raw.replace(/_/g, ""));
  if (raw.trim() === "" || !Number.isInteger(keep) || keep < 1) validateKeep(raw, "--keep");
  return keep;
}

/** A flag's whole number of `what`, 1 or more. */
export function countFlag(parameter: string, raw: string | undefined, what: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw.replace(/_/g, ""));
  if (raw.trim() === "" || !Number.isInteger(value) || value < 1)
    throw invalidArgument(parameter, raw, `a whole number of ${what}, 1 or more`);
  return value;
}

/** A flag's whole number of milliseconds, `minimum` or more (`_` separators allowed). */
export function milliseconds(parameter: string, raw: string, minimum = 0): number {
  const value = Number(raw.replace(/_/g, ""));
  if (raw.trim() === "" || !Number.isInteger(value) || value < minimum)
    throw invalidArgument(parameter, raw, `a whole number of milliseconds (${minimum} or more)`);
  return value;
}
