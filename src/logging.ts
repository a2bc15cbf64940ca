import pino, { type Logger } from 'pino';
import type { LogLevel } from './config/config.ts';

/** Structured JSON logs; credentials are redacted wherever they could appear. */
export function createLogger(level: LogLevel, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          '*.password',
          '*.current_password',
          '*.token',
          '*.key',
          '*.opc',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
