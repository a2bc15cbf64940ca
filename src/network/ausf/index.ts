// The AUSF with the UDM/ARPF and SIDF roles, over the network ports (TS 33.501 6.1.3.2, 6.12.2).
export { createAusf, type Ausf, type PendingAuthentication } from './ausf.ts';
export { createHomeNetworkKeyRing, type HomeNetworkKeyRing } from './home-network-keys.ts';
export { resolveSupi } from './sidf.ts';
