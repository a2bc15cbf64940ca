import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { LISTENER_SHUTDOWN_TIMEOUT_MS } from '../../src/network/transport/n2-transport.ts';

const unit = readFileSync(new URL('../../deploy/pmn-core.service', import.meta.url), 'utf8');

// systemd kills the service at TimeoutStopSec: a stop still waiting on radios then loses what it had
// not written yet (docs/n2.md, "Stopping"). Five times the N2 bound: the queued records and the HTTP
// requests in flight are written and answered within the same timeout.
describe('the systemd unit', () => {
  it('stops with SIGTERM and waits longer than the N2 stop bound, with room for the records and requests', () => {
    assert.match(unit, /^KillSignal=SIGTERM$/m);
    const seconds = Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]);
    assert.ok(Number.isInteger(seconds), 'TimeoutStopSec in whole seconds');
    assert.ok(
      seconds * 1000 >= 5 * LISTENER_SHUTDOWN_TIMEOUT_MS,
      `TimeoutStopSec=${seconds} leaves too little beyond the ${LISTENER_SHUTDOWN_TIMEOUT_MS} ms N2 bound`,
    );
  });
});
