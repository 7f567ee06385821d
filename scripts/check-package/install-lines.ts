import { fencedBlocks } from "./readme-examples.js";

/**
 * The packages the docs tell a user to install: each `npm install …` line of a page's ```bash blocks, and the
 * README's Install table (the backticked packages of its "install" column). check:package installs exactly these,
 * from the registry at the versions this project tests, and compiles the examples against them.
 */

/** The packages of each `npm install` / `npm i` line of the page's bash blocks, in order (flags left out). */
export function installLines(markdown: string): string[][] {
  const blocks = fencedBlocks(markdown, "bash");
  const lines: string[][] = [];
  for (const block of blocks) {
    for (const line of block.split("\n")) {
      // The install command alone: a comment, or what follows `&&` / `;`, is not part of it.
      const command = /^\s*npm (?:install|i|add)\b([^;&#]*)/.exec(line);
      if (!command) continue;
      lines.push(
        command[1]!
          .trim()
          .split(/\s+/)
          .filter((word) => word !== "" && !word.startsWith("-")),
      );
    }
  }
  return lines.filter((packages) => packages.length > 0);
}

/** The packages named in the "install" column of the page's `| you use | install |` table. */
export function installTable(markdown: string): string[] {
  const table = /^\| you use \| install \|\n\|[-| ]+\|\n((?:\|.*\|\n)+)/m.exec(markdown)?.[1] ?? "";
  return table
    .split("\n")
    .filter(Boolean)
    .flatMap((row) =>
      [...(row.split("|").at(-2) ?? "").matchAll(/`([^`]+)`/g)].flatMap((match) => match[1]!.split(/\s+/)),
    )
    .filter((word) => word !== "" && !word.startsWith("-"));
}

/**
 * A package the docs tell a user to install, as the checks install it: the library from the packed tarball, any
 * other package at the version this project tests (its devDependencies range), whatever version the docs pin.
 */
export function testedSpec(spec: string, tarball: string, devDependencies: Record<string, string>): string {
  const name = packageName(spec);
  if (name === "langgraph-compaction") return tarball;
  if (!devDependencies[name])
    throw new Error(`the docs install ${spec}, which this project does not test (add it to devDependencies)`);
  return `${name}@${devDependencies[name]}`;
}

/** A package name without its version (`@scope/name@^1` → `@scope/name`). */
export function packageName(spec: string): string {
  const at = spec.indexOf("@", 1);
  return at < 0 ? spec : spec.slice(0, at);
}
