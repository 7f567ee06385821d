/**
 * A test leaves no wrapper's background work running (a summary, its write, a prune): what it starts, it waits for
 * (`flush()`) or ends (`close()`) before its teardown closes the stores under that work. Work left running goes on
 * against a closed SQLite file or an ended Postgres pool, in another test's time ("Cannot use a pool after calling
 * end on the pool", an unhandled rejection); this check fails the test that left it instead.
 */
import { afterEach } from "vitest";
import { BackgroundWork } from "../../src/runtimes/wrapper/background-work.js";

const live = new Set<BackgroundWork>();
const patched = Symbol.for("langgraph-compaction.test.background-teardown");
const prototype = BackgroundWork.prototype as BackgroundWork & { [patched]?: true };
if (!prototype[patched]) {
  prototype[patched] = true;
  const track = prototype.track;
  prototype.track = function (this: BackgroundWork, task: Promise<unknown>) {
    live.add(this);
    return track.call(this, task);
  };
}

afterEach(() => {
  const running = [...live].filter((work) => work.running > 0);
  live.clear();
  if (running.length > 0)
    throw new Error(
      `${running.length} wrapper(s) still ran background work (a summary, a write, a prune) after the test: flush() or close() them before its teardown`,
    );
});
