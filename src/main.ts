import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, secretKeyPath } from './config/config.ts';
import { loadOrCreateKeyFile } from './crypto/secret-box.ts';
import { createScheduler } from './jobs/scheduler.ts';
import { createLogger } from './logging.ts';
import { migrateToLatest, openSqliteDatabase } from './storage/database.ts';

async function main(): Promise<void> {
  const config = loadConfig(process.argv.slice(2), process.env);
  const logger = createLogger(config.logLevel);
  const tls = config.tls && { cert: readFileSync(config.tls.cert), key: readFileSync(config.tls.key) };

  // An in-memory database holds nothing past the process, so its secrets need no key file either.
  const secretKey =
    config.db === ':memory:' && !config.secretKeyFile
      ? randomBytes(32)
      : loadOrCreateKeyFile(secretKeyPath(config));

  const db = openSqliteDatabase(config.db);
  const applied = await migrateToLatest(db);
  const { app, backgroundJobs } = await buildApp({
    db,
    logger,
    tls,
    loginRateLimit: config.loginRateLimit,
    secretKey,
  });
  const scheme = tls ? 'https' : 'http';
  const host = config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host;

  await app.listen({
    host: config.listen.host,
    port: config.listen.port,
    listenTextResolver: (address) => `PMN Core listening on ${address}`,
  });
  logger.info({ db: config.db, migrationsApplied: applied }, `database ready at ${config.db}`);
  logger.debug({ url: `${scheme}://${host}:${config.listen.port}` }, 'management API');

  const scheduler = createScheduler(logger);
  for (const { name, intervalMs, job } of backgroundJobs) void scheduler.every(name, intervalMs, job);

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: no new connections, finishing requests in flight');
    // Node closes the connections idle when closing starts; one that finishes its request later would stay
    // open for its keep-alive timeout, so idle connections are swept until every request has ended.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    await app.close();
    clearInterval(sweep);
    await scheduler.stop();
    await db.destroy();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  const text =
    error instanceof ConfigError
      ? `configuration error: ${error.message}`
      : String((error as Error).stack ?? error);
  process.stderr.write(`${text}\n`);
  process.exit(1);
});
