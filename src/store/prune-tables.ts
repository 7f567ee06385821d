/**
 * What a prune's plan reads of a store's tables (engine/prune-plan.ts), per backend: the root checkpoints' ids, waiting
 * interrupts, and whether one checkpoint's messages list is the start of
 * another's, compared as stored (SQLite's JSON text, Postgres's JSON blobs) without reviving a message.
 *
 * A list is the start of another when the other's text begins with the list's text minus its closing bracket and
 * goes on with a comma or a bracket: a JSON value is self-delimiting, so the elements are the same, in order, to the
 * byte. A checkpoint whose `messages` channel was never written holds nothing (the start of any list).
 *
 * One difference is not a difference: a field that holds `undefined`. LangChain's serializer writes it as
 * `{"lc":2,"type":"undefined"}` when a message is first stored (a createReactAgent reply's `name`), and a message
 * read back and stored again by the next turn leaves it out: the same message either way. Such fields are taken out
 * of both texts before they are compared (`UNDEFINED_FIELD`). A JSON string escapes its quotes, so the pattern only
 * ever matches the structure, never a message's text.
 */
/** LangChain's `undefined` as its serializer writes it (see the file's comment). */
const UNDEFINED = '{"lc":2,"type":"undefined"}';

/**
 * A field of a JSON object whose value is `UNDEFINED`: with the comma before it, or the one after it when it comes
 * first. Postgres applies it in the server; `withoutUndefinedFields` is the same rule without a regular expression,
 * which would test every quote of a long list on the event loop.
 */
export const UNDEFINED_FIELD = /,"[^"\\]*":\{"lc":2,"type":"undefined"\}|"[^"\\]*":\{"lc":2,"type":"undefined"\},?/;

export function withoutUndefinedFields(json: string): string {
  if (!json.includes(UNDEFINED)) return json;
  const pieces = json.split(UNDEFINED);
  let text = pieces[0]!;
  for (const piece of pieces.slice(1)) {
    // `text` ends with the field's key, `"key":`, after a comma or the object's opening brace.
    const keyStart = text.lastIndexOf('"', text.length - 3);
    const key = text.slice(keyStart + 1, -2);
    const before = text[keyStart - 1];
    if (!text.endsWith('":') || key.includes("\\") || (before !== "," && before !== "{")) {
      text += UNDEFINED + piece;
    } else if (before === ",") text = text.slice(0, keyStart - 1) + piece;
    else text = text.slice(0, keyStart) + (piece.startsWith(",") ? piece.slice(1) : piece);
  }
  return text;
}

/** Whether the JSON list `whole` begins with the elements of the JSON list `start`, as written. */
export function startsWith(whole: string, start: string): boolean {
  if (start === "[]") return whole.startsWith("[");
  const open = start.slice(0, -1);
  if (!whole.startsWith(open)) return false;
  const next = whole[open.length];
  return next === "," || next === "]";
}
