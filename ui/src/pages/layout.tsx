import { AppShell, Burger, Group, Menu, NavLink, Text, Title, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { NavLink as RouterLink, Outlet, useNavigate } from 'react-router';
import { ROLE_NAMES } from '../auth/roles.ts';
import { signOut } from '../auth/session.ts';
import { useMe } from '../auth/use-me.ts';

const PAGES = [
  { to: '/', label: 'Dashboard' },
  { to: '/subscribers', label: 'Subscribers' },
];

/** The frame of every page: the navigation (a drawer on a phone), the user menu, and the page. */
export function Layout() {
  const [opened, { toggle, close }] = useDisclosure();
  const me = useMe();
  const navigate = useNavigate();
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Navigation" />
            <Title order={2} size="h4">
              PMN Core
            </Title>
          </Group>
          <Menu position="bottom-end">
            <Menu.Target>
              <UnstyledButton aria-label="User menu">
                <Text size="sm">{me ? `${me.email} (${ROLE_NAMES[me.roleId] ?? me.roleId})` : '…'}</Text>
              </UnstyledButton>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item onClick={() => void navigate('/account')}>Password and API tokens</Menu.Item>
              <Menu.Item color="red" onClick={() => void signOut()}>
                Sign out
              </Menu.Item>
            </Menu.Dropdown>
          </Menu>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Pages">
        {PAGES.map((page) => (
          <NavLink
            key={page.to}
            component={RouterLink}
            to={page.to}
            end={page.to === '/'}
            label={page.label}
            onClick={close}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
