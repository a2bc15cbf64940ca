import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A packet capture (dumpcap) on one interface, for tshark to check the CRC32c of every SCTP packet
 * our stack put on the wire.
 */
export interface Capture {
  /** Stops capturing and returns the checksum status of each SCTP packet from `sources`. */
  stop(sources: readonly string[]): Promise<string[]>;
}

export async function startCapture(iface: string, file: string): Promise<Capture> {
  const child = spawn('dumpcap', ['-q', '-i', iface, '-f', 'ip proto 132 or ip6 proto 132', '-w', file], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      if (stderr.includes('Capturing on')) resolve();
    });
    child.on('close', () => reject(new Error(`dumpcap ended: ${stderr}`)));
  });
  return {
    async stop(sources) {
      // dumpcap stops at once on SIGINT: give it a moment to read what the kernel still holds.
      await new Promise((resolve) => setTimeout(resolve, 500));
      child.kill('SIGINT');
      await exited;
      const { stdout } = await run('tshark', [
        '-r',
        file,
        '-o',
        'sctp.checksum:CRC-32C',
        '-Y',
        'sctp',
        '-T',
        'fields',
        '-e',
        'ip.src',
        '-e',
        'ipv6.src',
        '-e',
        'sctp.checksum.status',
      ]);
      return stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split('\t'))
        .filter(([v4, v6]) => sources.includes(v4 ?? '') || sources.includes(v6 ?? ''))
        .map(([, , status]) => status ?? '');
    },
  };
}
