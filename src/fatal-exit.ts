import type { Logger } from 'pino';

/** What a fatal line says of a thrown value: its type, message and stack, never its other properties. */
function describeThrown(thrown: unknown): { type: string; message: string; stack?: string } {
  if (thrown instanceof Error) return { type: thrown.name, message: thrown.message, stack: thrown.stack };
  return { type: typeof thrown, message: String(thrown) };
}

/**
 * A defect that escapes every handler (an exception thrown in a callback, a rejected promise nobody
 * awaits) ends the process, as Node's default does, but with one fatal log line saying why, so an exit is
 * never silent. Only the error's type, message and stack are logged: its other properties may hold
 * request data.
 */
export function logFatalExits(logger: Logger): void {
  // With this listener Node raises an unhandled rejection here too, with origin 'unhandledRejection'.
  process.on('uncaughtException', (thrown, origin) => {
    const err = describeThrown(thrown);
    const what = origin === 'unhandledRejection' ? 'unhandled promise rejection' : 'uncaught exception';
    logger.fatal({ err, origin }, `exiting on an ${what}: ${err.message}`);
    // pino writes the line out as the process exits.
    process.exit(1);
  });
}
