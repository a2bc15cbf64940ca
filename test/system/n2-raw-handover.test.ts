import { handoverSuite } from './n2-kernel/handover-suite.ts';

// The radio side in a network namespace on our SCTP over a raw socket (n2-kernel/handover-suite.ts).
handoverSuite('raw', 0, [46, 47, 48]);
