/**
 * A TCP proxy in front of a Postgres server, to make it go away at a chosen point of a command rather than at a
 * chosen time: `arm(trigger)` holds the first chunk a client sends whose text matches, and resolves once it is held.
 * The test then takes the server away (stops it, terminates the sessions, or `cut()`s every connection) and
 * `release()`s the chunk, which the command's connection sends into the outage.
 */
import { createServer, Socket, type Server } from "node:net";

export interface HeldChunk {
  /** The local ports of the proxy's connections to the server (pg_stat_activity.client_port of the sessions). */
  readonly upstreamPorts: number[];
  release(): void;
}

export interface PgProxy {
  /** The target URL with the proxy's host and port. */
  readonly url: string;
  arm(trigger: (text: string) => boolean): Promise<HeldChunk>;
  /** Closes every proxied connection at once, as a network failure would. */
  cut(): void;
  close(): Promise<void>;
}

export async function startPgProxy(target: string): Promise<PgProxy> {
  const upstreamUrl = new URL(target);
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let armed: { trigger: (text: string) => boolean; tripped: (held: HeldChunk) => void } | undefined;
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    const pair = { client, upstream };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    upstream.connect(Number(upstreamUrl.port || 5432), upstreamUrl.hostname);
    upstream.pipe(client);
    client.on("data", (chunk: Buffer) => {
      const waiting = armed;
      if (waiting && waiting.trigger(chunk.toString("latin1"))) {
        armed = undefined;
        client.pause();
        waiting.tripped({
          upstreamPorts: [...pairs]
            .map(({ upstream: socket }) => socket.localPort)
            .filter((port): port is number => port !== undefined),
          release: () => {
            if (!upstream.destroyed) upstream.write(chunk);
            client.resume();
          },
        });
        return;
      }
      if (!upstream.destroyed) upstream.write(chunk);
    });
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const address = server.address();
  const proxied = new URL(target);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(typeof address === "object" && address ? address.port : 0);
  return {
    url: proxied.toString(),
    arm: (trigger) => new Promise((tripped) => (armed = { trigger, tripped })),
    cut: () => {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    close: async () => {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((closed) => server.close(() => closed()));
    },
  };
}
