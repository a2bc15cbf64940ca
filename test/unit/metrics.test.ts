import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMetrics } from '../../src/metrics/metrics.ts';

describe('metrics registry', () => {
  it('renders a counter with its labels', async () => {
    const metrics = createMetrics();
    const ingested = metrics.counter({
      name: 'pmn_test_records_ingested_total',
      help: 'Records ingested',
      labelNames: ['record_type'],
    });
    ingested.inc({ record_type: 'radio_events' }, 3);
    ingested.inc({ record_type: 'radio_events' });
    assert.match(
      await metrics.render(),
      /^pmn_test_records_ingested_total\{record_type="radio_events"\} 4$/m,
    );
  });

  it('reads a gauge at each scrape, and drops series its collect no longer returns', async () => {
    const metrics = createMetrics();
    let radios = [{ labels: { rat: 'nr' }, value: 2 }];
    metrics.gauge({
      name: 'pmn_test_connected_radios',
      help: 'Radios connected now',
      labelNames: ['rat'],
      collect: () => radios,
    });
    metrics.gauge({ name: 'pmn_test_queue_depth', help: 'Queued records', collect: async () => 7 });
    let text = await metrics.render();
    assert.match(text, /^pmn_test_connected_radios\{rat="nr"\} 2$/m);
    assert.match(text, /^pmn_test_queue_depth 7$/m);

    radios = [{ labels: { rat: 'eutra' }, value: 1 }];
    text = await metrics.render();
    assert.match(text, /^pmn_test_connected_radios\{rat="eutra"\} 1$/m);
    assert.doesNotMatch(text, /rat="nr"/);
  });

  it('refuses label names that would carry personal data', () => {
    const metrics = createMetrics();
    for (const label of ['imsi', 'SUPI', 'imei', 'msisdn', 'email', 'ip']) {
      assert.throws(
        () =>
          metrics.counter({ name: `pmn_test_${label.toLowerCase()}_total`, help: 'x', labelNames: [label] }),
        /would carry personal data/,
      );
    }
  });

  it('keeps each registry apart, so two apps in one process do not collide', async () => {
    const first = createMetrics();
    const second = createMetrics();
    first.counter({ name: 'pmn_test_shared_total', help: 'x' }).inc({}, 2);
    second.counter({ name: 'pmn_test_shared_total', help: 'x' }).inc({}, 5);
    assert.match(await first.render(), /^pmn_test_shared_total 2$/m);
    assert.match(await second.render(), /^pmn_test_shared_total 5$/m);
  });
});
