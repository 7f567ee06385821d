/**
 * The one way a name enters SQL text: as a double-quoted identifier with embedded quotes doubled. Every value goes
 * through bound parameters ($1, ?); a test checks that no other interpolation exists in src/.
 */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
