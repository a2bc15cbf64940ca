import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { viewNgapPdu } from '../../src/network/ngap/ngap-codec.ts';
import { bits, plmnIdentity } from '../../src/network/ngap/ngap-values.ts';
import type { GnbConfig } from '../../src/simulator/gnb-config.ts';
import { expectedRadioId } from '../../src/simulator/gnb-config.ts';
import type { NGAPPDU } from '../../src/network/ngap/generated/types.ts';
import type { GnbEvent, NgapExchange, UeSignalling } from '../../src/simulator/gnb.ts';
import { NgapProcedureError, SimulatedGnb } from '../../src/simulator/gnb.ts';
import type { ResetScope } from '../../src/simulator/gnb-messages.ts';
import type { FakeN2Association } from '../helpers/fake-n2-transport.ts';
import { FakeN2Network } from '../helpers/fake-n2-transport.ts';
import { tshark } from '../helpers/tshark.ts';
import { AMF_NAME, ScriptedAmf, failure, ngSetupResponse, steppedTimers } from './scripted-amf.ts';

const AMF = [{ address: '127.0.0.1', port: 38412 }];
const config: GnbConfig = {
  plmn: { mcc: '001', mnc: '01' },
  node: { kind: 'gNB', value: 1, bitLength: 22 },
  name: 'gnb-1',
  supportedTas: [
    { tac: 1, plmns: [{ plmn: { mcc: '001', mnc: '01' }, slices: [{ sst: 1, sd: 0x010203 }] }] },
  ],
};

/** The JSON view (network.md section 3) as the API serves it: absent fields dropped. */
const view = (bytes: Uint8Array): unknown => JSON.parse(JSON.stringify(viewNgapPdu(bytes)));

/** Every PDU either side sent in these tests, for one tshark run at the end. */
const seen: NgapExchange[] = [];

async function setup(gnbConfig: GnbConfig = config, timers = steppedTimers()) {
  const network = new FakeN2Network();
  const amf = await ScriptedAmf.listen(network.transport());
  const gnb = new SimulatedGnb({ config: gnbConfig, transport: network.transport(), amf: AMF, timers });
  const events: GnbEvent[] = [];
  gnb.on((event) => events.push(event));
  gnb.on((event) => {
    if (event.type === 'sent' || event.type === 'received') seen.push(event.exchange);
  });
  await gnb.connect();
  return { network, amf, gnb, events, timers };
}

describe('simulated gNB against a scripted AMF (fake transport)', () => {
  after(async () => {
    // tshark, an independent decoder, reads every PDU both sides exchanged as the intended message.
    const verdicts = await tshark(
      'ngap',
      seen.filter((exchange) => exchange.pdu !== undefined).map((exchange) => exchange.bytes),
    );
    const decoded = seen.filter((exchange) => exchange.pdu !== undefined);
    verdicts.forEach((verdict, i) => {
      const exchange = decoded[i]!;
      assert.equal(verdict.malformed, false, `${exchange.messageType} malformed`);
      assert.equal(verdict.expert, '', `${exchange.messageType}: ${verdict.expert}`);
      assert.ok(verdict.info.includes(exchange.messageType), `${verdict.info} is ${exchange.messageType}`);
    });
  });

  it('NG Setup accepted: the request carries the configuration, the answer is read into the AMF description', async () => {
    const { amf, gnb } = await setup();
    const outcome = await gnb.ngSetup();
    assert.deepEqual(outcome, {
      outcome: 'accepted',
      amf: {
        name: AMF_NAME,
        servedGuamis: [{ plmn: { mcc: '001', mnc: '01' }, regionId: 'ca', setId: '3f5', pointer: '01' }],
        relativeCapacity: 200,
        plmnSupport: [{ plmn: { mcc: '001', mnc: '01' }, slices: [{ sst: 1, sd: 0x010203 }] }],
      },
    });
    assert.equal(gnb.state.kind, 'ready');
    const request = amf.received[0];
    assert.equal(request?.messageType, 'NGSetupRequest');
    assert.deepEqual(view(request.bytes), {
      initiating_message: {
        procedure_code: 'NGSetup',
        criticality: 'Reject (0)',
        value: {
          ng_setup_request: {
            ies: [
              {
                id: 'GlobalRANNodeID (27)',
                criticality: 'Reject (0)',
                global_ran_node_id: {
                  global_gnb_id: { plmn_identity: { mcc: '001', mnc: '01' }, gnb_id: '000001' },
                },
              },
              { id: 'RANNodeName (82)', criticality: 'Ignore (1)', ran_node_name: 'gnb-1' },
              {
                id: 'SupportedTAList (102)',
                criticality: 'Reject (0)',
                supported_ta_list: [
                  {
                    tac: '000001',
                    broadcast_plmn_list: [
                      {
                        plmn_identity: { mcc: '001', mnc: '01' },
                        tai_slice_support_list: [{ s_nssai: { sst: '01', sd: '010203' } }],
                      },
                    ],
                  },
                ],
              },
              { id: 'DefaultPagingDRX (21)', criticality: 'Ignore (1)', default_paging_drx: 'v128' },
            ],
          },
        },
      },
    });
    assert.equal(gnb.local?.address, '127.0.0.1');
  });

  it('gNB ids of 22 and 32 bits and the three ng-eNB kinds are encoded as their Global RAN Node ID', async () => {
    const nodes: [GnbConfig['node'], string, unknown][] = [
      [{ kind: 'gNB', value: 0x3fffff, bitLength: 22 }, '001:01:3fffff', '3fffff'],
      [{ kind: 'gNB', value: 0xfedcba98, bitLength: 32 }, '001:01:fedcba98', 'fedcba98'],
      [
        { kind: 'ng-eNB', variant: 'macro', value: 0xabcde },
        '001:01:macro-abcde',
        { macro_ng_enb_id: 'abcde' },
      ],
      [
        { kind: 'ng-eNB', variant: 'short-macro', value: 0x3ffff },
        '001:01:short-macro-3ffff',
        { short_macro_ng_enb_id: '3ffff' },
      ],
      [
        { kind: 'ng-eNB', variant: 'long-macro', value: 0x1fffff },
        '001:01:long-macro-1fffff',
        { long_macro_ng_enb_id: '1fffff' },
      ],
    ];
    for (const [node, radioId, id] of nodes) {
      const { amf, gnb } = await setup({ ...config, node });
      assert.equal(expectedRadioId(gnb.config), radioId);
      assert.equal((await gnb.ngSetup()).outcome, 'accepted');
      const shown = view(amf.received[0]!.bytes) as {
        initiating_message: { value: { ng_setup_request: { ies: Record<string, unknown>[] } } };
      };
      const global = shown.initiating_message.value.ng_setup_request.ies[0]?.global_ran_node_id as Record<
        string,
        Record<string, unknown>
      >;
      const [kind, value] = Object.entries(global)[0]!;
      assert.equal(kind, node.kind === 'gNB' ? 'global_gnb_id' : 'global_ng_enb_id');
      assert.deepEqual(value.plmn_identity, { mcc: '001', mnc: '01' });
      assert.deepEqual(node.kind === 'gNB' ? value.gnb_id : value.ng_enb_id, id);
    }
    assert.throws(
      () =>
        new SimulatedGnb({
          config: { ...config, node: { kind: 'gNB', value: 1, bitLength: 21 } },
          transport: new FakeN2Network().transport(),
          amf: AMF,
        }),
      RangeError,
    );
    assert.throws(
      () =>
        new SimulatedGnb({
          config: { ...config, node: { kind: 'gNB', value: 2 ** 22, bitLength: 22 } },
          transport: new FakeN2Network().transport(),
          amf: AMF,
        }),
      RangeError,
    );
  });

  it('NG Setup refused: the cause, time to wait, and the node stays associated', async () => {
    const { amf, gnb } = await setup();
    amf.ngSetupAnswer = () => failure('NGSetup', { choice: 'misc', value: 'unknown-PLMN-or-SNPN' });
    assert.deepEqual(await gnb.ngSetup(), {
      outcome: 'refused',
      failure: { cause: 'misc/unknown-PLMN-or-SNPN', timeToWait: 'v10s', criticalityDiagnostics: undefined },
    });
    assert.equal(gnb.state.kind, 'associated');
  });

  it('no answer: the procedure rejects when the injected clock passes the response timeout', async () => {
    const timers = steppedTimers();
    const { amf, gnb, network } = await setup(config, timers);
    amf.ngSetupAnswer = undefined;
    const outcome = gnb.ngSetup();
    await network.settled();
    assert.equal(amf.received.length, 1);
    timers.advance(4999);
    timers.advance(1);
    await assert.rejects(
      outcome,
      (error: Error) => error instanceof NgapProcedureError && /within 5000 ms/.test(error.message),
    );
    const again = gnb.ngSetup(); // a new attempt is allowed once the first has given up
    timers.advance(5000);
    await assert.rejects(again, NgapProcedureError);
  });

  it('RAN Configuration Update: acknowledged changes become the configuration; a failure leaves it', async () => {
    const { amf, gnb } = await setup();
    await gnb.ngSetup();
    const supportedTas = [{ tac: 2, plmns: [{ plmn: { mcc: '001', mnc: '01' }, slices: [{ sst: 2 }] }] }];
    assert.deepEqual(await gnb.ranConfigurationUpdate({ name: 'gnb-renamed', supportedTas }), {
      outcome: 'acknowledged',
    });
    assert.equal(gnb.config.name, 'gnb-renamed');
    assert.deepEqual(gnb.config.supportedTas, supportedTas);
    const update = amf.received.find((r) => r.messageType === 'RANConfigurationUpdate');
    assert.deepEqual(
      (
        view(update!.bytes) as {
          initiating_message: { value: { ran_configuration_update: { ies: { id: string }[] } } };
        }
      ).initiating_message.value.ran_configuration_update.ies.map((ie) => ie.id),
      ['RANNodeName (82)', 'SupportedTAList (102)'],
    );
    amf.ranConfigurationUpdateAnswer = () =>
      failure('RANConfigurationUpdate', { choice: 'misc', value: 'unspecified' });
    const refused = await gnb.ranConfigurationUpdate({ name: 'gnb-refused' });
    assert.deepEqual(refused, {
      outcome: 'refused',
      failure: { cause: 'misc/unspecified', timeToWait: 'v10s', criticalityDiagnostics: undefined },
    });
    assert.equal(gnb.config.name, 'gnb-renamed');
  });

  it('NG Reset both ways: the node resets its UEs and the AMF acknowledges; an AMF reset is acknowledged with its list', async () => {
    const { amf, gnb, network } = await setup();
    const resets: ResetScope[] = [];
    const ues: UeSignalling = { receive: () => undefined, reset: (scope) => resets.push(scope) };
    gnb.attachUes(ues);
    await gnb.ngSetup();
    assert.deepEqual(await gnb.ngReset({ choice: 'misc', value: 'om-intervention' }), {
      outcome: 'acknowledged',
      connections: [],
    });
    const association = [...amf.associations.keys()][0]!;
    const connections = [{ aMFUENGAPID: 7, rANUENGAPID: 9 }];
    const reset = gnb.next((event) => (event.type === 'ng-reset' ? event : undefined));
    const acknowledged = amf.next('NGResetAcknowledge');
    amf.send(association, {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 20,
        name: 'NGReset',
        criticality: 'reject',
        value: {
          protocolIEs: [
            {
              id: 15,
              name: 'Cause',
              criticality: 'ignore',
              value: { choice: 'transport', value: 'unspecified' },
            },
            {
              id: 88,
              name: 'ResetType',
              criticality: 'reject',
              value: { choice: 'partOfNG-Interface', value: connections },
            },
          ],
        },
      },
    });
    assert.equal((await reset).cause, 'transport/unspecified');
    const ack = await acknowledged;
    await network.settled();
    const shown = view(ack.bytes) as {
      successful_outcome: { value: { ng_reset_acknowledge: { ies: Record<string, unknown>[] } } };
    };
    assert.deepEqual(
      shown.successful_outcome.value.ng_reset_acknowledge.ies[0]?.ue_associated_logical_ng_connection_list,
      [{ amf_ue_ngap_id: 7, ran_ue_ngap_id: 9 }],
    );
    assert.deepEqual(JSON.parse(JSON.stringify(resets)), [{ kind: 'all' }, { kind: 'part', connections }]);
  });

  it('AMF Configuration Update is acknowledged and updates what the node knows of the AMF', async () => {
    const { amf, gnb } = await setup();
    await gnb.ngSetup();
    const association = [...amf.associations.keys()][0]!;
    const update = gnb.next((event) => (event.type === 'amf-configuration-update' ? event : undefined));
    const acknowledged = amf.next('AMFConfigurationUpdateAcknowledge');
    amf.send(association, {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 0,
        name: 'AMFConfigurationUpdate',
        criticality: 'reject',
        value: {
          protocolIEs: [
            {
              id: 80,
              name: 'PLMNSupportList',
              criticality: 'reject',
              value: [
                {
                  pLMNIdentity: plmnIdentity('999', '070'),
                  sliceSupportList: [{ sNSSAI: { sST: Uint8Array.of(3) } }],
                },
              ],
            },
          ],
        },
      },
    });
    const event = await update;
    assert.deepEqual(event.changes.plmnSupport, [{ plmn: { mcc: '999', mnc: '070' }, slices: [{ sst: 3 }] }]);
    assert.equal(event.amf.name, AMF_NAME);
    await acknowledged;
    assert.deepEqual(gnb.state.kind === 'ready' && gnb.state.amf.plmnSupport, event.changes.plmnSupport);
  });

  it('the backup AMF name of each served GUAMI is kept from NG Setup Response and AMF Configuration Update (TS 23.501 5.21.2)', async () => {
    const { amf, gnb } = await setup();
    const guami = (pointer: number) => ({
      pLMNIdentity: plmnIdentity('001', '01'),
      aMFRegionID: bits(0xca, 8),
      aMFSetID: bits(0x3f5, 10),
      aMFPointer: bits(pointer, 6),
    });
    const response = ngSetupResponse();
    assert.ok(response.choice === 'successfulOutcome' && response.value.name === 'NGSetup');
    for (const ie of response.value.value.protocolIEs) {
      if (ie.name === 'ServedGUAMIList') ie.value = [{ gUAMI: guami(1), backupAMFName: 'amf-b' }];
    }
    amf.ngSetupAnswer = () => response;
    const outcome = await gnb.ngSetup();
    assert.ok(outcome.outcome === 'accepted');
    assert.deepEqual(outcome.amf.servedGuamis, [
      {
        plmn: { mcc: '001', mnc: '01' },
        regionId: 'ca',
        setId: '3f5',
        pointer: '01',
        backupAmfName: 'amf-b',
      },
    ]);
    const association = [...amf.associations.keys()][0]!;
    const update = gnb.next((event) => (event.type === 'amf-configuration-update' ? event : undefined));
    const acknowledged = amf.next('AMFConfigurationUpdateAcknowledge');
    amf.send(association, {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 0,
        name: 'AMFConfigurationUpdate',
        criticality: 'reject',
        value: {
          protocolIEs: [
            {
              id: 96,
              name: 'ServedGUAMIList',
              criticality: 'reject',
              value: [{ gUAMI: guami(1), backupAMFName: 'amf-c' }, { gUAMI: guami(2) }],
            },
            { id: 86, name: 'RelativeAMFCapacity', criticality: 'ignore', value: 17 },
          ],
        },
      },
    });
    await update;
    await acknowledged;
    assert.ok(gnb.state.kind === 'ready');
    assert.deepEqual(
      gnb.state.amf.servedGuamis.map((item) => [item.pointer, item.backupAmfName]),
      [
        ['01', 'amf-c'],
        ['02', undefined],
      ],
    );
    assert.equal(gnb.state.amf.relativeCapacity, 17);
  });

  it('AMF Status Indication (TS 38.413 8.7.6): the unavailable GUAMIs and their backup AMFs are kept until the next NG Setup; nothing is answered', async () => {
    const { amf, gnb, events } = await setup();
    await gnb.ngSetup();
    const association = [...amf.associations.keys()][0]!;
    const indication = (pointer: number, backupAMFName?: string): NGAPPDU => ({
      choice: 'initiatingMessage',
      value: {
        procedureCode: 1,
        name: 'AMFStatusIndication',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            {
              id: 120,
              name: 'UnavailableGUAMIList',
              criticality: 'reject',
              value: [
                {
                  gUAMI: {
                    pLMNIdentity: plmnIdentity('001', '01'),
                    aMFRegionID: bits(0xca, 8),
                    aMFSetID: bits(0x3f5, 10),
                    aMFPointer: bits(pointer, 6),
                  },
                  ...(backupAMFName === undefined ? {} : { backupAMFName }),
                },
              ],
            },
          ],
        },
      },
    });
    const sentBefore = gnb.sent.length;
    const first = gnb.nextReceived('AMFStatusIndication');
    amf.send(association, indication(1, 'amf-b'));
    await first;
    const second = gnb.nextReceived('AMFStatusIndication');
    amf.send(association, indication(2));
    await second;
    assert.deepEqual(
      events.filter((event) => event.type === 'amf-status-indication').map((event) => event.unavailable),
      [
        [
          {
            plmn: { mcc: '001', mnc: '01' },
            regionId: 'ca',
            setId: '3f5',
            pointer: '01',
            backupAmfName: 'amf-b',
            timerApproach: false,
          },
        ],
        [
          {
            plmn: { mcc: '001', mnc: '01' },
            regionId: 'ca',
            setId: '3f5',
            pointer: '02',
            timerApproach: false,
          },
        ],
      ],
    );
    assert.deepEqual(
      gnb.unavailableGuamis.map((guami) => [guami.pointer, guami.backupAmfName]),
      [
        ['01', 'amf-b'],
        ['02', undefined],
      ],
    );
    assert.equal(gnb.sent.length, sentBefore, 'a class 2 procedure: no answer');
    await gnb.ngSetup();
    assert.deepEqual(gnb.unavailableGuamis, [], 'the AMF describes itself anew');
  });

  it('what its generated readers refuse (TS 38.413 10.3) is not taken: an NG Setup Response without its AMF Name ends NG Setup unsuccessfully; an AMF Configuration Update out of order and an NG Reset without its Reset Type are not acted on', async () => {
    const { amf, gnb, network, events } = await setup();
    const response = ngSetupResponse();
    assert.ok(response.choice === 'successfulOutcome' && response.value.name === 'NGSetup');
    // AMF Name is mandatory with criticality reject (9.2.6.2): its absence fails the procedure (10.3.5).
    const withoutName: NGAPPDU = {
      choice: 'successfulOutcome',
      value: {
        ...response.value,
        value: { protocolIEs: response.value.value.protocolIEs.filter((ie) => ie.name !== 'AMFName') },
      },
    };
    amf.ngSetupAnswer = () => withoutName;
    await assert.rejects(
      gnb.ngSetup(),
      (error: Error) =>
        error instanceof NgapProcedureError && /unreadable answer NGSetupResponse/.test(error.message),
    );
    assert.equal(gnb.state.kind, 'associated');
    amf.ngSetupAnswer = ngSetupResponse;
    await gnb.ngSetup();

    const association = [...amf.associations.keys()][0]!;
    const unreadable = () => gnb.next((event) => (event.type === 'unreadable' ? event.exchange : undefined));
    const update = unreadable();
    // PLMN Support List before AMF Name: not the order of the object set (10.3.6, falsely constructed).
    amf.send(association, {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 0,
        name: 'AMFConfigurationUpdate',
        criticality: 'reject',
        value: {
          protocolIEs: [
            {
              id: 80,
              name: 'PLMNSupportList',
              criticality: 'reject',
              value: [
                {
                  pLMNIdentity: plmnIdentity('999', '070'),
                  sliceSupportList: [{ sNSSAI: { sST: Uint8Array.of(3) } }],
                },
              ],
            },
            { id: 1, name: 'AMFName', criticality: 'reject', value: 'amf.renamed' },
          ],
        },
      },
    });
    assert.equal((await update).messageType, 'AMFConfigurationUpdate');
    const reset = unreadable();
    const resets: ResetScope[] = [];
    gnb.attachUes({ receive: () => undefined, reset: (scope) => resets.push(scope) });
    amf.send(association, {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 20,
        name: 'NGReset',
        criticality: 'reject',
        value: {
          protocolIEs: [
            {
              id: 15,
              name: 'Cause',
              criticality: 'ignore',
              value: { choice: 'transport', value: 'unspecified' },
            },
          ],
        },
      },
    });
    assert.equal((await reset).messageType, 'NGReset');
    await network.settled();
    assert.deepEqual(
      amf.received.map((r) => r.messageType).filter((type) => type.endsWith('Acknowledge')),
      [],
    );
    assert.deepEqual(resets, []);
    // Read afresh: NG Setup since made the node ready.
    const state = gnb.state as SimulatedGnb['state'];
    assert.equal(state.kind === 'ready' && state.amf.name, AMF_NAME);
    assert.equal(
      events.filter((event) => event.type === 'amf-configuration-update' || event.type === 'ng-reset').length,
      0,
    );
  });

  it('Error Indication both ways, garbage from the AMF answered with a transfer syntax error, garbage sent on demand', async () => {
    const { amf, gnb } = await setup();
    await gnb.ngSetup();
    const association = [...amf.associations.keys()][0]!;
    const indication = gnb.next((event) => (event.type === 'error-indication' ? event.report : undefined));
    amf.send(association, {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 9,
        name: 'ErrorIndication',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            {
              id: 15,
              name: 'Cause',
              criticality: 'ignore',
              value: { choice: 'protocol', value: 'semantic-error' },
            },
          ],
        },
      },
    });
    assert.equal((await indication).cause, 'protocol/semantic-error');

    const answered = amf.next('ErrorIndication');
    const unknown = gnb.nextReceived('Unknown');
    amf.send(association, Uint8Array.of(0xff, 0xff, 0xff));
    assert.ok((await unknown).error);
    const ours = await answered;
    assert.deepEqual(
      ours.pdu?.choice === 'initiatingMessage' &&
        ours.pdu.value.name === 'ErrorIndication' &&
        ours.pdu.value.value.protocolIEs,
      [
        {
          id: 15,
          name: 'Cause',
          criticality: 'ignore',
          value: { choice: 'protocol', value: 'transfer-syntax-error' },
        },
      ],
    );

    const garbage = amf.next('Unknown');
    assert.deepEqual(gnb.sendBytes(Uint8Array.of(0x00, 0x15, 0x00)), { ok: true });
    assert.deepEqual([...(await garbage).bytes], [0x00, 0x15, 0x00]);
    assert.equal(gnb.sent.at(-1)?.messageType, 'Unknown');

    const sent = amf.next('ErrorIndication');
    gnb.errorIndication({ cause: { choice: 'misc', value: 'unspecified' } });
    assert.equal((await sent).messageType, 'ErrorIndication');
  });

  it('abort, shutdown, loss and restart end or reset the node as SCTP says', async () => {
    const aborted = await setup();
    await aborted.gnb.ngSetup();
    assert.deepEqual(await aborted.gnb.abort('test'), {
      reason: 'communication-lost',
      lost: 'local-abort',
      cause: 'test',
    });
    await aborted.network.settled();
    assert.equal([...aborted.amf.ends.values()][0]?.type, 'communication-lost');
    assert.deepEqual(aborted.gnb.send({ choice: null, index: 0, value: new Uint8Array() }), {
      ok: false,
      error: 'closed',
    });

    const closed = await setup();
    assert.deepEqual(await closed.gnb.shutdown(), { reason: 'shutdown' });

    const lost = await setup();
    const pending = lost.gnb.ngReset({ choice: 'misc', value: 'unspecified' });
    // The AMF's side of the fake association stops answering: retransmissions exceeded on both ends.
    (lost.amf.associations.values().next().value as FakeN2Association).simulateLoss();
    await assert.rejects(pending, NgapProcedureError);
    assert.equal((await lost.gnb.closed).reason, 'communication-lost');

    const restarted = await setup();
    await restarted.gnb.ngSetup();
    const restart = restarted.gnb.next((event) => (event.type === 'restart' ? true : undefined));
    // The gNB's end of the fake association learns that its peer restarted.
    (restarted.amf.associations.values().next().value as FakeN2Association).peer?.simulatePeerRestart();
    await restart;
    assert.equal(restarted.gnb.state.kind, 'associated');
  });

  it('UE-associated PDUs go to the attached UE signalling', async () => {
    const { amf, gnb } = await setup();
    const got: string[] = [];
    gnb.attachUes({ receive: (exchange) => got.push(exchange.messageType), reset: () => undefined });
    await gnb.ngSetup();
    const association = [...amf.associations.keys()][0]!;
    const delivered = gnb.nextReceived('DownlinkNASTransport');
    amf.send(association, {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 4,
        name: 'DownlinkNASTransport',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: 1 },
            { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: 1 },
            { id: 38, name: 'NAS-PDU', criticality: 'reject', value: Uint8Array.of(0x7e, 0x00, 0x5b, 0x01) },
          ],
        },
      },
    });
    await delivered;
    assert.deepEqual(got, ['DownlinkNASTransport']);
  });

  it('without keepLog the node keeps no PDU, yet runs its procedures and hands UE-associated PDUs on', async () => {
    const network = new FakeN2Network();
    const amf = await ScriptedAmf.listen(network.transport());
    const gnb = new SimulatedGnb({ config, transport: network.transport(), amf: AMF, keepLog: false });
    let deliver: (messageType: string) => void = () => undefined;
    const delivered = new Promise<string>((resolve) => (deliver = resolve));
    gnb.attachUes({ receive: (exchange) => deliver(exchange.messageType), reset: () => undefined });
    await gnb.connect();
    assert.equal((await gnb.ngSetup()).outcome, 'accepted');
    const association = [...amf.associations.keys()][0]!;
    amf.send(association, {
      choice: 'initiatingMessage',
      value: {
        procedureCode: 4,
        name: 'DownlinkNASTransport',
        criticality: 'ignore',
        value: {
          protocolIEs: [
            { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: 1 },
            { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: 1 },
            { id: 38, name: 'NAS-PDU', criticality: 'reject', value: Uint8Array.of(0x7e, 0x00, 0x5b, 0x01) },
          ],
        },
      },
    });
    assert.equal(await delivered, 'DownlinkNASTransport');
    // Garbage is still answered with Error Indication (TS 38.413 10.2).
    const answered = amf.next('ErrorIndication');
    amf.send(association, Uint8Array.of(0xff, 0xff, 0xff));
    await answered;
    assert.deepEqual(
      amf.received.map((r) => r.messageType),
      ['NGSetupRequest', 'ErrorIndication'],
    );
    assert.equal(gnb.sent.length, 0);
    assert.equal(gnb.received.length, 0);
  });
});
