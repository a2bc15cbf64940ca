import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

// SIOCETHTOOL with ETHTOOL_STXCSUM, data 0 (python3 is already a build requirement; there may be no
// ethtool binary).
const SCRIPT = `
import ctypes, fcntl, socket, struct, sys
value = ctypes.create_string_buffer(struct.pack('II', 0x17, 0))
request = struct.pack('16sP', sys.argv[1].encode(), ctypes.addressof(value)).ljust(40, b'\\0')
fcntl.ioctl(socket.socket(socket.AF_INET, socket.SOCK_DGRAM), 0x8946, request)
`;

/**
 * Turns transmit checksum offload off on a veth in a namespace, so that the packets its stack sends
 * carry complete TCP and UDP checksums, as packets from a NIC do. A veth with offload on passes
 * packets whose checksum the receiver is told it need not check; the UPF's XDP program, which sees no
 * such flag, would carry them into GTP-U unfinished (docs/upf.md "The XDP datapath", limits).
 */
export async function txChecksumOff(namespace: string, dev: string): Promise<void> {
  await run('ip', ['netns', 'exec', namespace, 'python3', '-c', SCRIPT, dev]);
}
