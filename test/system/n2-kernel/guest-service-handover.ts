/**
 * Runs inside the qemu guest: the service (handover-service.ts: the test app on an in-memory SQLite, its
 * AMF on our `kernel` transport, the Linux kernel's SCTP) and handover-scenario.ts's gNBs, also on the
 * kernel's SCTP, over the guest's loopback. The service's side acts where the scenario holds; what it saw
 * goes to the host as the `service` result.
 */
import { GUEST_ADDON_PATH, guestArguments } from '../../../scripts/qemu-sctp/guest-runtime.ts';
import { KernelTransport } from '../../../src/network/transport/kernel/kernel-transport.ts';
import { loadNativeAddon } from '../../../src/network/transport/native/native-addon.ts';
import { startHandoverService } from './handover-service.ts';
import { runHandoverScenario, type HandoverArgs } from './handover-scenario.ts';
import { report, runGuest } from './peer-runtime.ts';

runGuest(async () => {
  const args = guestArguments<HandoverArgs & { name: string }>();
  const side = await startHandoverService({
    transport: 'kernel',
    address: args.amf,
    imsis: [args.imsi, ...args.others],
  });
  report({ step: 'service-started' });
  const load = loadNativeAddon(GUEST_ADDON_PATH);
  if (!load.ok) throw load.error;
  const transport = new KernelTransport({ addon: load.addon });
  try {
    await runHandoverScenario(transport, args, args.name, () => side.atTarget(`${args.name}-2`));
    await side.finish();
    report({ step: 'service', ...side.view });
  } finally {
    await transport.close();
    await side.close();
  }
});
