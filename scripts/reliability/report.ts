/**
 * Prints the figures the reliability suites recorded in .tmp/reliability/ (run them first:
 * `npm run test:reliability` does both, at full size).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { printTable } from "../bench/table.js";

type Figures = Record<string, unknown> & { full?: boolean; recordedAt?: string };

const dir = join(process.cwd(), ".tmp", "reliability");
if (!existsSync(dir)) {
  console.error("no figures in .tmp/reliability: run `npm run test:reliability` (or `npm test`) first");
  process.exit(1);
}
const suites: Record<string, Figures> = Object.fromEntries(
  readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .map((name) => [name.replace(/\.json$/, ""), JSON.parse(readFileSync(join(dir, name), "utf8")) as Figures]),
);
const n = (value: unknown) => (typeof value === "number" ? value.toLocaleString("en-US") : "—");
const sum = (figures: Figures | undefined, prefix: string, suffix = "") =>
  Object.entries(figures ?? {})
    .filter(([key, value]) => key.startsWith(prefix) && key.endsWith(suffix) && typeof value === "number")
    .reduce((total, [, value]) => total + (value as number), 0);

const { fuzz, crash, race, faults } = suites;
const badInput = suites["bad-input"];
const hostile = suites["hostile-search"];
const exactness = suites["index-exactness"];
const rows = [
  {
    suite: "property-based (fast-check)",
    size: `${n(fuzz?.pureCases)} histories + ${n(fuzz?.storedCases)} stored threads (seed ${fuzz?.seed ?? "—"})`,
    exercised: `${n(fuzz?.pureCompacted)} compactions, ${n(fuzz?.runningSummaries)} running summaries, ${n(fuzz?.storedAudits)} audits, ${n(fuzz?.logCompactions)} compactions into a summary log, ${n(fuzz?.formSwitches)} switches of a thread between the two forms`,
    lost: n(fuzz?.messagesLost),
  },
  {
    suite: "crash safety (SIGKILL, SQLite)",
    size: `${n(crash?.trials)} + ${n(crash?.rebaseTrials)} + ${n(crash?.logTrials)} trials on ${n(crash?.messagesPerThread)} messages`,
    exercised:
      `${n(crash?.trials)} kills, head old ${n(crash?.headsOld)} / new ${n(crash?.headsNew)}, last phase ${JSON.stringify(crash?.lastPhaseBeforeKill ?? {})}; ` +
      `${n(crash?.rebaseTrials)} kills around a rebased write, heads ${JSON.stringify(crash?.rebaseHeads ?? {})}; ` +
      `${n(crash?.logTrials)} kills in a log thread's segment, reflection and write, heads ${JSON.stringify(crash?.logHeads ?? {})}`,
    lost: n(crash?.messagesLost),
  },
  {
    suite: "racing writers (SQLite + Postgres)",
    size: `${n(sum(race, "", ":turns"))} turns`,
    exercised:
      `${n(sum(race, "", ":wrapperCompactions") + sum(race, "", ":scriptCompactions"))} compactions (${n(sum(race, "", ":scriptConflictsOrBusy"))} script runs lost a race or found the thread busy), ` +
      `${n(sum(race, "", ":scriptRestores"))} of ${n(sum(race, "", ":scriptRestoreRuns"))} restores landed; the index answered exactly what left the head (${n(sum(race, "", ":indexBackInHead"))} entries of messages back in the head left out)`,
    lost: n(sum(race, "", ":messagesLost")),
  },
  {
    suite: "failing summarizers",
    size: `${Object.keys(faults ?? {}).filter((key) => key.startsWith("injected:")).length} fault kinds`,
    exercised: `${n(sum(faults, "injected:"))} faults injected`,
    lost: "0 (nothing written)",
  },
  {
    suite: "recall index under interleaved writes (fast-check)",
    size: `${n(exactness?.cases)} interleavings (seed ${fuzz?.seed ?? "—"})`,
    exercised: `${n(exactness?.compactions)} compactions, ${n(exactness?.restores)} restores, ${n(exactness?.superseding)} superseding turns; after each write, the index answered exactly what was out of the head`,
    lost: "0",
  },
  {
    suite: "hostile searches (memory, SQLite, Postgres)",
    size: `${n(sum(hostile, "", ":answered") + sum(hostile, "", ":refused"))} searches`,
    exercised: `${n(sum(hostile, "", ":answered"))} answered from the tenant's own thread beside a tenant spelling its index key (${["syntax", "absent", "nul", "size", "unicode"].map((kind) => `${kind} ${n(sum(hostile, "", `:${kind}`))}`).join(", ")}), ${n(sum(hostile, "", ":refused"))} refused with INVALID_ARGUMENT`,
    lost: "0 (nothing written)",
  },
  ...(["sqlite", "postgres"] as const).map((kind) => {
    const versions = suites[`every-version-${kind}`];
    return {
      suite: `every version through prunes (${kind}, fast-check)`,
      size: `${n(versions?.runs)} threads, ${n(versions?.steps)} steps (seed ${fuzz?.seed ?? "—"})`,
      exercised: `Overwrite, RemoveMessage, single-message and Command writes, ${n(versions?.edits)} updateState edits under an id, ${n(versions?.compactions)} compactions, ${n(versions?.restores)} restores, ${n(versions?.prunes)} prunes; ${n(versions?.versionsChecked)} versions checked after them`,
      lost: n(versions?.versionsLost),
    };
  }),
  {
    suite: "the fleet under drawn kills (Postgres, pg-boss)",
    size: `${n(suites["fleet-kills"]?.trials)} trials of 3 workers over 16 threads`,
    exercised: `a worker SIGKILLed at its summary ${JSON.stringify(suites["fleet-kills"]?.killedAtSummary ?? [])}; each thread compacted once on its lineage, no two jobs of a thread at once, the dead worker's jobs run again by another`,
    lost: "0 (auditThread clean on every thread)",
  },
  {
    suite: "bad input",
    size: `${n((badInput?.apiCases as number) + (badInput?.scriptCases as number))} cases`,
    exercised: `${n(badInput?.apiCases)} API + ${n(badInput?.scriptCases)} script, each a typed error`,
    lost: "0 (nothing written)",
  },
];
const full = Object.values(suites).every((figures) => figures.full);
console.log(
  `Reliability figures (${full ? "full run, RELIABILITY_FULL=1" : "reduced run"}; recorded ${Object.values(suites)
    .map((f) => f.recordedAt)
    .sort()
    .at(-1)})`,
);
printTable(
  "",
  rows.map((row) => ({ suite: row.suite, size: row.size, exercised: row.exercised, "messages lost": row.lost })),
);
