import {
  AppShell,
  Burger,
  Center,
  Group,
  Loader,
  Menu,
  NavLink,
  ScrollArea,
  Text,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { Suspense } from 'react';
import { useDisclosure } from '@mantine/hooks';
import { NavLink as RouterLink, Outlet, useNavigate } from 'react-router';
import { ROLE_NAMES, type Abilities } from '../auth/roles.ts';
import { signOut } from '../auth/session.ts';
import { useMe } from '../auth/use-me.ts';
import { RefreshControl, ZoneControl } from '../components/display-controls.tsx';
import { closeLiveEvents } from '../components/live-events.ts';

/** The navigation: every page a role may read (the service decides again on each request). */
const PAGES: { to: string; label: string; shown?: (can: Abilities) => boolean }[] = [
  { to: '/', label: 'Dashboard' },
  { to: '/subscribers', label: 'Subscribers' },
  { to: '/profiles', label: 'Profiles' },
  { to: '/policies', label: 'Policies' },
  { to: '/slices', label: 'Slices' },
  { to: '/data-networks', label: 'Data networks' },
  { to: '/operator', label: 'Operator' },
  { to: '/radios', label: 'Radios' },
  { to: '/radio-events', label: 'Radio events' },
  { to: '/flow-reports', label: 'Flow reports' },
  { to: '/usage', label: 'Usage' },
  { to: '/location', label: 'Location' },
  { to: '/logs/radio', label: 'Radio logs' },
  { to: '/logs/subscribers', label: 'Subscriber logs' },
  { to: '/sms', label: 'Short messages' },
  { to: '/logs/audit', label: 'Audit logs', shown: (can) => can.readAudit },
  { to: '/users', label: 'Users', shown: (can) => can.readUsers },
  { to: '/retention', label: 'Retention' },
  { to: '/backup', label: 'Backup and restore', shown: (can) => can.backup },
];

/** The frame of every page: the navigation (a drawer on a phone), the user menu, and the page. */
export function Layout() {
  const [opened, { toggle, close }] = useDisclosure();
  const me = useMe();
  const navigate = useNavigate();
  const userText = me ? `${me.email} (${ROLE_NAMES[me.roleId] ?? me.roleId})` : '…';
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        {/* One row at any width: on a phone the name gives way and the user's text is cut short. */}
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Navigation" />
            <Title order={2} size="h4" visibleFrom="sm">
              PMN Core
            </Title>
          </Group>
          <Group gap="md" wrap="nowrap">
            <RefreshControl />
            <Menu position="bottom-end">
              <Menu.Target>
                {/* The name starts with the text shown, so speech control finds it by what it reads (WCAG 2.5.3). */}
                <UnstyledButton aria-label={`${userText}: user menu`}>
                  <Text size="sm" truncate="end" maw={{ base: 150, sm: 'none' }}>
                    {userText}
                  </Text>
                </UnstyledButton>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item onClick={() => void navigate('/account')}>Password and API tokens</Menu.Item>
                <Menu.Item
                  onClick={() => {
                    closeLiveEvents();
                    void signOut();
                  }}
                >
                  Sign out
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Pages">
        <AppShell.Section grow component={ScrollArea}>
          {PAGES.filter((page) => !page.shown || (me !== undefined && page.shown(me.can))).map((page) => (
            <NavLink
              key={page.to}
              component={RouterLink}
              to={page.to}
              end={page.to === '/'}
              label={page.label}
              onClick={close}
            />
          ))}
        </AppShell.Section>
        <AppShell.Section p="xs">
          <ZoneControl />
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main>
        <Suspense
          fallback={
            <Center h={200}>
              <Loader aria-label="Loading" />
            </Center>
          }
        >
          <Outlet />
        </Suspense>
      </AppShell.Main>
    </AppShell>
  );
}
