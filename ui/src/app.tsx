import { Center, Loader } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, useEffect, type ComponentType } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { api, result } from './api/client.ts';
import { initialize, resume, signIn, useSession } from './auth/session.ts';
import { ErrorAlert } from './components/error-alert.tsx';
import { AccountPage } from './pages/account.tsx';
import { CredentialsForm } from './pages/credentials-form.tsx';
import { DashboardPage } from './pages/dashboard.tsx';
import { Layout } from './pages/layout.tsx';
import { SubscriberPage } from './pages/subscriber.tsx';
import { SubscribersPage } from './pages/subscribers.tsx';

// Pages beyond the first screen load when first opened, so the first load stays small (docs/performance.md).
const page = <K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) =>
  lazy(async () => ({ default: (await load())[name] }));
const ProfilesPage = page(() => import('./pages/network/profiles.tsx'), 'ProfilesPage');
const SlicesPage = page(() => import('./pages/network/slices.tsx'), 'SlicesPage');
const PoliciesPage = page(() => import('./pages/network/policies.tsx'), 'PoliciesPage');
const DataNetworksPage = page(() => import('./pages/network/data-networks.tsx'), 'DataNetworksPage');
const OperatorPage = page(() => import('./pages/network/operator.tsx'), 'OperatorPage');
const RadiosPage = page(() => import('./pages/ran/radios.tsx'), 'RadiosPage');
const RadioPage = page(() => import('./pages/ran/radios.tsx'), 'RadioPage');
const RadioEventsPage = page(() => import('./pages/records/radio-events.tsx'), 'RadioEventsPage');
const RadioLogsPage = page(() => import('./pages/records/logs.tsx'), 'RadioLogsPage');
const SubscriberLogsPage = page(() => import('./pages/records/logs.tsx'), 'SubscriberLogsPage');
const AuditLogsPage = page(() => import('./pages/records/logs.tsx'), 'AuditLogsPage');
const SmsPage = page(() => import('./pages/records/sms.tsx'), 'SmsPage');
const UsersPage = page(() => import('./pages/admin/users.tsx'), 'UsersPage');
const RetentionPage = page(() => import('./pages/admin/retention.tsx'), 'RetentionPage');
const BackupPage = page(() => import('./pages/admin/backup.tsx'), 'BackupPage');
const FlowReportsPage = page(() => import('./pages/traffic/flow-reports.tsx'), 'FlowReportsPage');
const UsagePage = page(() => import('./pages/traffic/usage.tsx'), 'UsagePage');
const LocationPage = page(() => import('./pages/traffic/location.tsx'), 'LocationPage');

/** Until the first user exists the service offers only the first start; then sign-in; then the pages. */
export function App() {
  const session = useSession();
  const queryClient = useQueryClient();
  const status = useQuery({
    queryKey: ['status'],
    queryFn: () => result(api.GET('/api/v1/status')),
  });

  useEffect(() => {
    void resume();
  }, []);
  // Cached answers belong to the user who asked: a sign-out forgets them. The status is asked again,
  // without credentials: signed in, the service added its health view to it.
  useEffect(() => {
    if (session.state !== 'signed-out') return;
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'status' });
    void queryClient.invalidateQueries({ queryKey: ['status'], exact: true });
  }, [session.state, queryClient]);

  if (status.error) return <ErrorAlert error={status.error} title="PMN Core cannot be reached" />;
  if (!status.data || session.state === 'checking') {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (!status.data.initialized) {
    return (
      <CredentialsForm
        title="Welcome to PMN Core"
        intro="Create the first administrator. You will be signed in as this user."
        submitLabel="Create administrator"
        minPasswordLength={8}
        onSubmit={async (email, password) => {
          await initialize(email, password);
          await status.refetch();
        }}
      />
    );
  }
  if (session.state === 'signed-out') {
    return (
      <CredentialsForm
        title="Sign in to PMN Core"
        intro="Use your PMN Core user's e-mail and password."
        submitLabel="Sign in"
        notice={session.reason}
        onSubmit={signIn}
      />
    );
  }
  return (
    <BrowserRouter>
      <Routes>
        <Route element={<Layout />}>
          <Route index element={<DashboardPage />} />
          <Route path="subscribers" element={<SubscribersPage />} />
          <Route path="subscribers/:imsi" element={<SubscriberPage />} />
          <Route path="account" element={<AccountPage />} />
          <Route path="profiles" element={<ProfilesPage />} />
          <Route path="slices" element={<SlicesPage />} />
          <Route path="policies" element={<PoliciesPage />} />
          <Route path="data-networks" element={<DataNetworksPage />} />
          <Route path="operator" element={<OperatorPage />} />
          <Route path="radios" element={<RadiosPage />} />
          <Route path="radios/:name" element={<RadioPage />} />
          <Route path="radio-events" element={<RadioEventsPage />} />
          <Route path="logs/radio" element={<RadioLogsPage />} />
          <Route path="logs/subscribers" element={<SubscriberLogsPage />} />
          <Route path="logs/audit" element={<AuditLogsPage />} />
          <Route path="sms" element={<SmsPage />} />
          <Route path="users" element={<UsersPage />} />
          <Route path="retention" element={<RetentionPage />} />
          <Route path="backup" element={<BackupPage />} />
          <Route path="flow-reports" element={<FlowReportsPage />} />
          <Route path="usage" element={<UsagePage />} />
          <Route path="location" element={<LocationPage />} />
          <Route path="*" element={<Navigate to="/" replace />} />
        </Route>
      </Routes>
    </BrowserRouter>
  );
}
