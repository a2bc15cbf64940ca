import { handoverSuite } from './handover-suite.ts';

// The radio side in a qemu guest on the Linux kernel's SCTP (handover-suite.ts).
handoverSuite('kernel', 3, [43, 44, 45]);
