import { runSimulator } from '../src/simulator/cli.ts';

/** `npm run sim -- gnb ...`: the gNB simulator's command (docs/simulator.md). Ctrl-C shuts down gracefully. */
const stop = new Promise<void>((resolve) => {
  process.once('SIGINT', () => resolve());
  process.once('SIGTERM', () => resolve());
});
try {
  process.exitCode = await runSimulator(
    process.argv.slice(2),
    (line) => process.stdout.write(`${line}\n`),
    stop,
  );
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
