import { Center, Loader } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { api, result } from './api/client.ts';
import { initialize, refresh, signIn, useSession } from './auth/session.ts';
import { ErrorAlert } from './components/error-alert.tsx';
import { AccountPage } from './pages/account.tsx';
import { CredentialsForm } from './pages/credentials-form.tsx';
import { DashboardPage } from './pages/dashboard.tsx';
import { Layout } from './pages/layout.tsx';
import { SubscriberPage } from './pages/subscriber.tsx';
import { SubscribersPage } from './pages/subscribers.tsx';

/** Until the first user exists the service offers only the first start; then sign-in; then the pages. */
export function App() {
  const session = useSession();
  const queryClient = useQueryClient();
  const status = useQuery({
    queryKey: ['status'],
    queryFn: () => result(api.GET('/api/v1/status')),
  });

  useEffect(() => {
    void refresh();
  }, []);
  // Cached answers belong to the user who asked: a sign-out forgets them.
  useEffect(() => {
    if (session.state === 'signed-out')
      queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'status' });
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
          <Route path="*" element={<Navigate to="/" replace />} />
        </Route>
      </Routes>
    </BrowserRouter>
  );
}
