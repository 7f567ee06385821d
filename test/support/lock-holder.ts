/**
 * A second process holding a SQLite file's lock: `BEGIN IMMEDIATE` (the write lock; in WAL mode readers go on) or
 * `BEGIN EXCLUSIVE` (in rollback-journal mode, readers wait too). Resolves once the lock is held (the child says
 * so); `release()` rolls back and waits for the child to exit.
 */
import "../../src/store/all-backends.js";
import { spawn } from "node:child_process";
import { ROOT } from "./child-entry.js";

const HOLDER = `
const Database = require("better-sqlite3");
const db = new Database(process.argv[1]);
db.exec(process.argv[2] === "exclusive" ? "BEGIN EXCLUSIVE" : "BEGIN IMMEDIATE");
process.stdout.write("locked\\n");
process.stdin.on("end", () => { db.exec("ROLLBACK"); db.close(); process.exit(0); });
process.stdin.resume();
`;

export interface HeldLock {
  release(): Promise<void>;
}

export function holdLock(path: string, kind: "immediate" | "exclusive"): Promise<HeldLock> {
  const child = spawn(process.execPath, ["-e", HOLDER, path, kind], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      if (!chunk.toString().includes("locked")) return;
      resolve({
        release: async () => {
          child.stdin.end();
          await exited;
        },
      });
    });
    void exited.then((code) =>
      reject(new Error(`the lock holder exited (${code}) before holding the lock: ${stderr}`)),
    );
  });
}
