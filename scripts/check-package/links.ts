/**
 * The relative links of the Markdown files a package ships, checked against the files it ships: a link that works
 * in the repository but names a file left out of the tarball is broken on npm's page and in node_modules.
 */
import { dirname, join, normalize } from "node:path";

/** "page → target" for each relative link of a shipped .md file whose target is not shipped. */
export function brokenShippedLinks(shipped: readonly string[], read: (path: string) => string): string[] {
  const files = new Set(shipped.map((path) => normalize(path)));
  const broken: string[] = [];
  for (const page of shipped.filter((path) => path.endsWith(".md"))) {
    for (const [, target] of read(page).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z][a-z+.-]*:/i.test(target!)) continue;
      const resolved = normalize(join(dirname(page), target!));
      const isFolder = [...files].some((file) => file.startsWith(`${resolved}/`));
      if (!files.has(resolved) && !isFolder) broken.push(`${page} → ${target}`);
    }
  }
  return broken;
}
