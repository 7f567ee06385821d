/**
 * The recall settings every runtime resolves the same way: whether the messages a write takes out of the head are
 * indexed, the Postgres text search configuration, and whether the summary tells the model about the
 * search_history tool.
 */
import { CompactionError } from "../errors.js";
import { argument } from "../options/check.js";
import { recall as RECALL } from "../options/fields.js";
import { DEFAULT_POSTGRES_LANGUAGE } from "../store/recall-index/postgres-index.js";

export interface RecallOptions {
  /** Postgres text search configuration ("simple" cuts any language into words; "english" stems). @default "simple" */
  language?: string;
  /**
   * The summary's header tells the model that older messages can be searched with the `search_history` tool. Turn
   * it on when the agents have the tool (createHistorySearchTool). @default HISTORY_SEARCH_TOOL from `env`, else false
   */
  announce?: boolean;
}

/** The recall settings, resolved. */
export interface RecallSettings {
  enabled: boolean;
  announce: boolean;
  language: string;
}

/** The environment variable saying the application's agents have the search_history tool ("true" or "false"). */
export const SEARCH_TOOL_ENVIRONMENT = "HISTORY_SEARCH_TOOL";

/**
 * The recall settings: `recall` as given, `announce` from HISTORY_SEARCH_TOOL in `env` when the option leaves it
 * unset, else off. The summary names the search_history tool only when the application says its agents have it:
 * a model told about a tool it lacks calls it and fails. The wrapper, a compaction worker and the script all decide
 * here, so one thread gets the same summary header whichever compacts it.
 * @throws CompactionError INVALID_ARGUMENT naming `recall`, `recall.announce` or HISTORY_SEARCH_TOOL and the value.
 */
export function resolveRecall(
  recall: boolean | RecallOptions | undefined,
  env: Record<string, string | undefined>,
): RecallSettings {
  const given = argument("recall", recall ?? true, RECALL);
  const recallOptions = typeof given === "object" ? given : {};
  const language = recallOptions.language ?? DEFAULT_POSTGRES_LANGUAGE;
  const announce = recallOptions.announce ?? announceFromEnv(env) ?? false;
  return { enabled: given !== false, announce: given !== false && announce, language };
}

function announceFromEnv(env: Record<string, string | undefined>): boolean | undefined {
  const raw = env[SEARCH_TOOL_ENVIRONMENT]?.trim().toLowerCase();
  if (!raw) return undefined;
  if (["true", "1", "yes"].includes(raw)) return true;
  if (["false", "0", "no"].includes(raw)) return false;
  throw new CompactionError({
    code: "INVALID_ARGUMENT",
    parameter: SEARCH_TOOL_ENVIRONMENT,
    value: env[SEARCH_TOOL_ENVIRONMENT],
    message: `${SEARCH_TOOL_ENVIRONMENT} must be true or false; got ${JSON.stringify(env[SEARCH_TOOL_ENVIRONMENT])}`,
  });
}
