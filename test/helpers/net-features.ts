import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

// SIOCETHTOOL: the feature names (ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS of ETH_SS_FEATURES), then
// ETHTOOL_SFEATURES with the named bits valid and requested as asked (python3 is already a build
// requirement; there may be no ethtool binary). Prints the names it did not find.
const SCRIPT = `
import ctypes, fcntl, socket, struct, sys
dev, wanted = sys.argv[1], dict((w[1:], w[0] == '+') for w in sys.argv[2:])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
def ethtool(data):
    buffer = ctypes.create_string_buffer(data, len(data))
    fcntl.ioctl(s, 0x8946, struct.pack('16sP', dev.encode(), ctypes.addressof(buffer)).ljust(40, b'\\0'))
    return buffer.raw
count = struct.unpack_from('I', ethtool(struct.pack('IIQI', 0x37, 0, 1 << 4, 0)), 16)[0]
raw = ethtool(struct.pack('III', 0x1b, 4, count) + bytes(32 * count))[12:]
names = [raw[32 * i:32 * (i + 1)].split(b'\\0')[0].decode() for i in range(count)]
blocks = [[0, 0] for _ in range((count + 31) // 32)]
for name, on in wanted.items():
    if name not in names:
        print(name)
        continue
    i = names.index(name)
    blocks[i // 32][0] |= 1 << (i % 32)
    if on:
        blocks[i // 32][1] |= 1 << (i % 32)
ethtool(struct.pack('II', 0x3b, len(blocks)) + b''.join(struct.pack('II', v, r) for v, r in blocks))
`;

/**
 * Turns offload features of a device in a namespace on or off by their ethtool names (`rx-gro`,
 * `tx-udp-segmentation`, ...), as `ethtool -K` does. Throws when a name is unknown to the kernel.
 */
export async function setNetFeatures(
  namespace: string,
  dev: string,
  features: Record<string, boolean>,
): Promise<void> {
  const args = Object.entries(features).map(([name, on]) => `${on ? '+' : '-'}${name}`);
  const { stdout } = await run('ip', ['netns', 'exec', namespace, 'python3', '-c', SCRIPT, dev, ...args]);
  if (stdout.trim() !== '') throw new Error(`unknown features on ${dev}: ${stdout.trim()}`);
}
