/** How the compaction script is invoked from this repository (its help and hints say so). */
export const REPOSITORY_INVOCATION = {
  command: "npm run compact --",
  note: "In this repository use npm run --silent compact -- … for --json output (--silent keeps npm's banner out).",
};
