import {
  createTheme,
  defaultVariantColorsResolver,
  Menu,
  Modal,
  NavLink,
  Pagination,
  type CSSVariablesResolver,
} from '@mantine/core';

/**
 * The look, chosen for WCAG 2.x AA contrast (4.5:1 for text) in light and dark, and names for the controls
 * Mantine draws without one. Checked by axe-core in test/system/web-ui-operator.test.ts.
 */
export const theme = createTheme({
  // Filled buttons and badges take shade 9 (light) or 8 (dark): white text on blue 6 is only 3.5:1.
  primaryShade: { light: 9, dark: 8 },
  // Light variants (badges, alerts, light buttons) write in the page's text colour on their tint: a yellow
  // or orange text on its own pale tint stays under 3:1.
  variantColorResolver: (input) => {
    const colors = defaultVariantColorsResolver(input);
    if (input.variant === 'light') return { ...colors, color: 'var(--mantine-color-text)' };
    // A subtle button hovered or focused (as after its dialog closes) shows the light tint: its coloured
    // text on that tint is 4:1, the page's text colour is far above 4.5:1.
    if (input.variant === 'subtle') return { ...colors, hoverColor: 'var(--mantine-color-text)' };
    return colors;
  },
  // Dialogs and menus appear without fading in for those who ask the system for less motion.
  respectReducedMotion: true,
  components: {
    // A focus placeholder without a role inside role="menu" is not allowed (ARIA: a menu owns menu items).
    Menu: Menu.extend({ defaultProps: { withInitialFocusPlaceholder: false } }),
    // The current page's link filled: the light variant's text on its tint stays under 4.5:1.
    NavLink: NavLink.extend({ defaultProps: { variant: 'filled' } }),
    // The close button is an icon: its name says what it does.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close dialog' } } }),
    Pagination: Pagination.extend({
      defaultProps: {
        getControlProps: (control: 'first' | 'previous' | 'last' | 'next') => ({
          'aria-label': `${control} page`,
        }),
        getItemProps: (page: number) => ({ 'aria-label': `page ${page}` }),
      },
    }),
  },
});

/** Secondary and error text a shade darker (light) or lighter (dark) than Mantine's, above 4.5:1. */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
  },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
  },
});
