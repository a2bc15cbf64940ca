/**
 * Runs in a network namespace (test/helpers/netns-program.ts): handover-scenario.ts over our `raw`
 * transport (SCTP on a raw IP socket of the namespace) against the AMF of the service on the host (our
 * `raw` stack on the other end of the veth pair). Its arguments are the JSON of argv[2].
 */
import { loadNativeAddon } from '../../../src/network/transport/native/native-addon.ts';
import { createRawTransport } from '../../../src/network/transport/raw/raw-transport.ts';
import { runHandoverScenario, type HandoverArgs } from './handover-scenario.ts';
import { runGuest } from './peer-runtime.ts';

runGuest(async () => {
  const args = JSON.parse(process.argv[2] ?? '{}') as HandoverArgs & { local: string };
  const load = loadNativeAddon();
  if (!load.ok) throw load.error;
  const { transport } = createRawTransport({ addon: load.addon, addresses: [args.local] });
  await runHandoverScenario(transport, args, 'raw-ho');
  await transport.close();
});
