/**
 * The lease table on Postgres is created on first use by whichever workers start first: workers starting at once,
 * each with its own pool (as separate processes), all get a working table and none an error from the catalog.
 */
import pg from "pg";
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { PostgresLeases } from "../../src/store/leases.js";

describe("PostgresLeases", () => {
  const admin = new pg.Pool({ connectionString: inject("postgresUrl"), max: 1 });
  afterAll(async () => await admin.end());

  it("creates its table once when eight workers start at the same moment on a schema without it", async () => {
    const url = inject("postgresUrl");
    // Forty fresh schemas: the race on the catalog shows in a few of them (code 42710 without the lock).
    for (let round = 0; round < 40; round++) {
      const schema = `l_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
      await admin.query(`CREATE SCHEMA "${schema}"`);
      const roundPools = Array.from({ length: 8 }, () => new pg.Pool({ connectionString: url, max: 1 }));
      const workers = roundPools.map((pool) => new PostgresLeases(pool, schema));
      // Each worker's first call is its first use of the table.
      const results = await Promise.allSettled(
        workers.map((leases, index) => leases.take("thread-1", `worker-${index}`, 60_000)),
      );
      for (const pool of roundPools) await pool.end();
      expect(results.filter((result) => result.status === "rejected")).toEqual([]);
      const taken = results.filter((result) => result.status === "fulfilled" && result.value.taken);
      expect(taken).toHaveLength(1);
    }
  });
});
