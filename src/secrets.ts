/**
 * Secrets never leave through an error message, a report or a log line: API keys (the OPENAI_API_KEY in the
 * environment, and anything shaped like an OpenAI/Anthropic key or a bearer token) and passwords in connection URLs
 * are masked. Applied to every CompactionError message, so no code path has to remember it.
 */

const KEY_SHAPES = [/\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{8,}/g, /\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*/gi];
const URL_PASSWORD = /(\/\/[^:/@\s]+):([^@\s]+)@/g;

/** `text` with every known secret masked. */
export function redactSecrets(text: string, env: NodeJS.ProcessEnv = process.env): string {
  let result = text;
  const key = env.OPENAI_API_KEY;
  if (key && key.length >= 8) result = result.split(key).join("***");
  for (const shape of KEY_SHAPES)
    result = result.replace(shape, (match) => `${match.slice(0, match.startsWith("Bearer") ? 7 : 3)}***`);
  return result.replace(URL_PASSWORD, "$1:***@");
}

/** True when `text` holds something `redactSecrets` would mask. */
export function holdsSecret(text: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return redactSecrets(text, env) !== text;
}
