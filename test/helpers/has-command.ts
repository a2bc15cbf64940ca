import { execFileSync } from 'node:child_process';

/** Whether `command` is on the PATH: a test that drives a tool (cc, tshark) is skipped without it. */
export function hasCommand(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
