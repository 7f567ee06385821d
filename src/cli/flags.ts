/** The script's numeric flags, read from their text as typed (the raw text in the error). */
import { numberArgument } from "../options/check.js";
import { keepCheckpoints } from "../engine/options.js";
import { integer } from "../options/rules.js";

/** The --keep flag: the newest checkpoints kept, the head among them (the raw text in the error, as typed). */
export function keepFlag(raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : numberArgument("--keep", raw, keepCheckpoints);
}

/** A flag's whole number of `what`, 1 or more. */
export function countFlag(parameter: string, raw: string | undefined, what: string): number | undefined {
  if (raw === undefined) return undefined;
  return numberArgument(parameter, raw, integer(1, { says: `a whole number of ${what}, 1 or more` }));
}

/** A flag's whole number of milliseconds, `minimum` or more (`_` separators allowed). */
export function milliseconds(parameter: string, raw: string, minimum = 0): number {
  return numberArgument(
    parameter,
    raw,
    integer(minimum, { says: `a whole number of milliseconds (${minimum} or more)` }),
  );
}
