import type { App } from '../../http/app-types.ts';
import { actorOf } from '../../http/authentication.ts';
import { sendJsonText } from '../../http/serialization.ts';
import { Envelope, message, MessageResult, ok, Paginated, pageWindow } from '../../http/schemas.ts';
import type { PduSession } from '../../network/network-state.ts';
import {
  CreateSubscriberBody,
  CredentialsResult,
  ImsiParams,
  SubscriberListItem,
  SubscriberListQuery,
  SubscriberResult,
  UpdateSubscriberBody,
} from './subscribers.schema.ts';
import { subscriberPageJson } from './subscriber-page-json.ts';
import type { SubscriberDetail, SubscribersService } from './subscribers.service.ts';

const toSession = (session: PduSession) => ({
  radio_access_type: session.radioAccessType,
  id: session.id,
  status: session.status,
  ip_type: session.ipType,
  ipv4_address: session.ipv4Address,
  ipv6_prefix: session.ipv6Prefix,
  data_network: session.dataNetwork,
  slice: { sst: session.slice.sst, sd: session.slice.sd },
  ambr_uplink: session.ambrUplink,
  ambr_downlink: session.ambrDownlink,
});

const toResult = ({ imsi, profileName, msisdn, state, servingAmf }: SubscriberDetail) => ({
  imsi,
  msisdn,
  profile_name: profileName,
  status: {
    // Registered with another member of the AMF set: this process's network state does not know it.
    registered: state.registered || servingAmf !== undefined,
    radio_access_types: state.radioAccessTypes,
    imei: state.imei,
    ciphering_algorithm: state.cipheringAlgorithm,
    integrity_algorithm: state.integrityAlgorithm,
    last_seen_at: state.lastSeenAt === undefined ? '' : new Date(state.lastSeenAt).toISOString(),
    last_seen_radio: state.lastSeenRadio,
    serving_amf: servingAmf ?? '',
  },
  sessions: state.sessions.map(toSession),
});

export function subscribersRoutes(deps: { subscribers: SubscribersService }) {
  const { subscribers } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/subscribers',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['subscribers'],
          summary: 'List subscribers, by IMSI, with their registration summary',
          querystring: SubscriberListQuery,
          response: { 200: Envelope(Paginated(SubscriberListItem)) },
        },
      },
      async (request, reply) => {
        const { limit, offset } = pageWindow(request.query);
        const { radio, data_network: dataNetwork, msisdn } = request.query;
        const { items, total } = await subscribers.list({ radio, dataNetwork, msisdn }, limit, offset);
        return sendJsonText(
          reply,
          subscriberPageJson(items, request.query.page, request.query.per_page, total),
        );
      },
    );

    app.post(
      '/api/v1/subscribers',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['subscribers'],
          summary: 'Create a subscriber',
          body: CreateSubscriberBody,
          response: { 201: Envelope(MessageResult) },
        },
      },
      async (request, reply) => {
        const { imsi, key, sequenceNumber, profile_name: profileName, opc, msisdn } = request.body;
        await subscribers.create({ imsi, key, sequenceNumber, profileName, opc, msisdn }, actorOf(request));
        return reply.code(201).send(message(`subscriber ${imsi} created`));
      },
    );

    app.get(
      '/api/v1/subscribers/:imsi',
      {
        config: { permission: 'network:read' },
        schema: {
          tags: ['subscribers'],
          summary: 'Get a subscriber with its status and sessions (never its key or OPc)',
          params: ImsiParams,
          response: { 200: Envelope(SubscriberResult) },
        },
      },
      async (request) => ok(toResult(await subscribers.get(request.params.imsi))),
    );

    app.put(
      '/api/v1/subscribers/:imsi',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['subscribers'],
          summary: 'Move a subscriber to another profile; set or remove its MSISDN',
          params: ImsiParams,
          body: UpdateSubscriberBody,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        const { imsi } = request.params;
        const { profile_name: profileName, msisdn } = request.body;
        await subscribers.update(imsi, { profileName, msisdn }, actorOf(request));
        return message(`subscriber ${imsi} updated`);
      },
    );

    app.delete(
      '/api/v1/subscribers/:imsi',
      {
        config: { permission: 'network:write' },
        schema: {
          tags: ['subscribers'],
          summary: 'Delete a subscriber',
          params: ImsiParams,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await subscribers.delete(request.params.imsi, actorOf(request));
        return message(`subscriber ${request.params.imsi} deleted`);
      },
    );

    app.get(
      '/api/v1/subscribers/:imsi/credentials',
      {
        config: { permission: 'credentials:read' },
        schema: {
          tags: ['subscribers'],
          summary: 'Read a subscriber’s key, OPc and sequence number; every read is audited',
          params: ImsiParams,
          response: { 200: Envelope(CredentialsResult) },
        },
      },
      async (request) => ok(await subscribers.credentials(request.params.imsi, actorOf(request))),
    );
  };
}
