/**
 * Listening and shutting down (the app itself is app.ts). Opens the store
 * (PGlite under TRAMLINE_DATA_DIR, or PostgreSQL with DATABASE_URL), runs
 * migrations, registers the bootstrap key, starts the planning pool and
 * listens. SIGINT/SIGTERM: stop accepting, let in-flight requests finish,
 * close the pool and the database, exit.
 */
import type { FastifyInstance } from 'fastify';
import { createLocationSearch } from '../integrations/location-search.ts';
import { ensureBootstrapKey } from '../store/bootstrap.ts';
import { openStore, type Store } from '../store/db.ts';
import { type AppOptions, buildApp } from './app.ts';
import { loadConfig, type ServerConfig } from './config.ts';

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  /** e.g. http://127.0.0.1:8080 */
  url: string;
  close(): Promise<void>;
}

/** Starts a server from a config (default: the environment). */
export async function startServer(config: ServerConfig = loadConfig()): Promise<RunningServer> {
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    keyCacheSeconds: config.keyCacheSeconds,
  });
  let app: FastifyInstance | undefined;
  try {
    if (config.bootstrapApiKey) {
      const b = await ensureBootstrapKey(store, config.bootstrapApiKey, config.bootstrapEmail);
      if (b.revoked) console.warn('TRAMLINE_BOOTSTRAP_API_KEY was revoked; it stays revoked.');
    }
    const locationSearch = createLocationSearch({
      geocoderUrl: process.env.TRAMLINE_GEOCODER_URL || undefined,
    });
    app = await buildApp({
      store,
      locationSearch,
      rateLimitPerMin: config.rateLimitPerMin,
      poolOptions: { threads: config.planThreads, maxQueue: config.planQueue, heapMb: config.planHeapMb },
      planning: { demDir: config.demDir },
      trustProxy: config.trustProxy as AppOptions['trustProxy'],
      logger: { level: config.logLevel, redact: ['req.headers["x-api-key"]'] },
      openRegistration: config.openRegistration,
      uploads: { fileQuota: config.fileQuota, archiveLimits: config.archiveLimits },
    });
    app.addHook('onClose', async () => {
      await locationSearch.close();
      await store.close();
    });
    const address = await app.listen({ port: config.port, host: config.host });
    // The location search's gazetteer is built in its own thread soon after start, not on the first search.
    setTimeout(() => void locationSearch.warm().catch(() => {}), 3000).unref();
    app.log.info(
      { database: store.kind, dataDir: store.kind === 'pglite' ? config.dataDir : undefined },
      `Tramline listening on ${address} (docs at ${address}/docs)`,
    );
    const a = app;
    return { app: a, store, url: address, close: () => a.close() };
  } catch (e) {
    if (app) await app.close().catch(() => {});
    await store.close().catch(() => {});
    throw e;
  }
}

/** Runs until SIGINT/SIGTERM; a second signal, or 30 s without finishing, exits at once. */
export async function runServer(config?: ServerConfig): Promise<number> {
  const server = await startServer(config);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        server.app.log.warn(`${signal} again: exiting now`);
        process.exit(1);
      }
      stopping = true;
      server.app.log.info(`${signal}: finishing in-flight requests, then stopping`);
      const force = setTimeout(() => {
        server.app.log.error('shutdown took over 30 s: exiting');
        process.exit(1);
      }, 30_000);
      force.unref();
      server
        .close()
        .then(() => resolve(0))
        .catch((err) => {
          server.app.log.error({ err }, 'shutdown failed');
          resolve(1);
        });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
