import { handoverSuite } from './handover-suite.ts';

// The service in a qemu guest, its AMF on the Linux kernel's SCTP, the gNBs beside it (handover-suite.ts).
handoverSuite('kernel-service', 4, [49, 50, 51]);
