import type { App } from '../../http/app-types.ts';
import { actorOf, principalOf } from '../../http/authentication.ts';
import {
  Envelope,
  message,
  MessageResult,
  ok,
  Paginated,
  paginated,
  PaginationQuery,
  pageWindow,
} from '../../http/schemas.ts';
import type { User } from './users.repository.ts';
import {
  ChangeOwnPasswordBody,
  CreateUserBody,
  EmailParams,
  SetPasswordBody,
  UpdateUserBody,
  UserResult,
} from './users.schema.ts';
import type { UsersService } from './users.service.ts';

const toResult = (user: User) => ({ email: user.email, role_id: user.roleId });

export function usersRoutes(deps: { users: UsersService }) {
  const { users } = deps;

  return async (app: App): Promise<void> => {
    app.get(
      '/api/v1/users',
      {
        config: { permission: 'users:read' },
        schema: {
          tags: ['users'],
          summary: 'List users',
          querystring: PaginationQuery,
          response: { 200: Envelope(Paginated(UserResult)) },
        },
      },
      async (request) => {
        const { limit, offset } = pageWindow(request.query);
        const { items, total } = await users.list(limit, offset);
        return ok(paginated(items.map(toResult), total, request.query));
      },
    );

    app.post(
      '/api/v1/users',
      {
        config: { permission: 'users:manage' },
        schema: {
          tags: ['users'],
          summary: 'Create a user',
          body: CreateUserBody,
          response: { 201: Envelope(MessageResult) },
        },
      },
      async (request, reply) => {
        const { email, password, role_id } = request.body;
        await users.create({ email, password, roleId: role_id }, actorOf(request));
        return reply.code(201).send(message(`user ${email.toLowerCase()} created`));
      },
    );

    app.get(
      '/api/v1/users/me',
      {
        config: { permission: 'self:read' },
        schema: { tags: ['users'], summary: 'The calling user', response: { 200: Envelope(UserResult) } },
      },
      async (request) => {
        const principal = principalOf(request);
        return ok({ email: principal.email, role_id: principal.roleId });
      },
    );

    app.put(
      '/api/v1/users/me/password',
      {
        config: { permission: 'self:password' },
        schema: {
          tags: ['users'],
          summary: 'Change the calling user’s password; the calling session stays, its other sessions end',
          body: ChangeOwnPasswordBody,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        await users.changeOwnPassword(
          {
            userId: principal.userId,
            keptSessionId: principal.via === 'bearer' ? principal.sessionId : undefined,
          },
          { currentPassword: request.body.current_password, password: request.body.password },
          actorOf(request),
        );
        return message('password changed; your other sessions ended');
      },
    );

    app.get(
      '/api/v1/users/:email',
      {
        config: { permission: 'users:read' },
        schema: {
          tags: ['users'],
          summary: 'Get a user',
          params: EmailParams,
          response: { 200: Envelope(UserResult) },
        },
      },
      async (request) => ok(toResult(await users.get(request.params.email))),
    );

    app.put(
      '/api/v1/users/:email',
      {
        config: { permission: 'users:manage' },
        schema: {
          tags: ['users'],
          summary: 'Change a user’s role',
          params: EmailParams,
          body: UpdateUserBody,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await users.updateRole(request.params.email, request.body.role_id, actorOf(request));
        return message(`user ${request.params.email.toLowerCase()} updated`);
      },
    );

    app.delete(
      '/api/v1/users/:email',
      {
        config: { permission: 'users:manage' },
        schema: {
          tags: ['users'],
          summary: 'Delete a user; its sessions and API tokens end',
          params: EmailParams,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await users.delete(request.params.email, actorOf(request));
        return message(`user ${request.params.email.toLowerCase()} deleted`);
      },
    );

    app.put(
      '/api/v1/users/:email/password',
      {
        config: { permission: 'users:manage' },
        schema: {
          tags: ['users'],
          summary: 'Set a user’s password; its sessions end',
          params: EmailParams,
          body: SetPasswordBody,
          response: { 200: Envelope(MessageResult) },
        },
      },
      async (request) => {
        await users.setPassword(request.params.email, request.body.password, actorOf(request));
        return message(`password of user ${request.params.email.toLowerCase()} changed`);
      },
    );
  };
}
