/**
 * Runs inside the qemu guest: handover-scenario.ts over our `kernel` transport (the Linux kernel's SCTP)
 * against the AMF of the service on the host (our `raw` stack on the tap).
 */
import { GUEST_ADDON_PATH, guestArguments } from '../../../scripts/qemu-sctp/guest-runtime.ts';
import { KernelTransport } from '../../../src/network/transport/kernel/kernel-transport.ts';
import { loadNativeAddon } from '../../../src/network/transport/native/native-addon.ts';
import { runHandoverScenario, type HandoverArgs } from './handover-scenario.ts';
import { runGuest } from './peer-runtime.ts';

runGuest(async () => {
  const load = loadNativeAddon(GUEST_ADDON_PATH);
  if (!load.ok) throw load.error;
  const transport = new KernelTransport({ addon: load.addon });
  await runHandoverScenario(transport, guestArguments<HandoverArgs>(), 'kernel-ho');
  await transport.close();
});
