/**
 * Runs inside the qemu guest: the service (handover-service.ts: the test app on an in-memory SQLite, its
 * AMF on our `kernel` transport, the Linux kernel's SCTP) at the guest's tap address, for
 * handover-scenario.ts's gNBs on the host (our `raw` stack over the tap):
 *   1. starts the service and announces `service-ready`;
 *   2. on the host's first connection to `controlPort` (the UE at the second gNB): the service's checks
 *      there, the new UE-AMBR, the location; the connection closed when done;
 *   3. on the second (the scenario ended): the radio events read, what the service saw reported as the
 *      `service` result.
 */
import { createServer } from 'node:net';

import { guestArguments } from '../../../scripts/qemu-sctp/guest-runtime.ts';
import type { HandoverArgs } from './handover-scenario.ts';
import { startHandoverService } from './handover-service.ts';
import { announce, report, runGuest } from './peer-runtime.ts';

/**
 * Runs `action` once the host connects to `port`, then closes the connection (what the host awaits);
 * `listening` runs once the port is open.
 */
function serveOnce(port: number, action: () => Promise<void>, listening = () => {}): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const control = createServer((socket) => {
      control.close();
      action().then(
        () => socket.end(() => resolve()),
        (error: unknown) => {
          socket.destroy();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
    control.on('error', reject).listen(port, '0.0.0.0', listening);
  });
}

runGuest(async () => {
  const args = guestArguments<HandoverArgs & { name: string }>();
  const side = await startHandoverService({
    transport: 'kernel',
    address: args.amf,
    imsis: [args.imsi, ...args.others],
  });
  try {
    await serveOnce(
      args.controlPort,
      () => side.atTarget(`${args.name}-2`),
      () => announce('service-ready'),
    );
    await serveOnce(args.controlPort, async () => {
      await side.finish();
      report({ step: 'service', ...side.view });
    });
  } finally {
    await side.close();
  }
});
