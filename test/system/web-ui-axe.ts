import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

// axe-core (a dev dependency) run inside the page: the WCAG 2.x A and AA rules, reporting the violations
// whose impact is critical or serious with the elements they name, so a failing test says what to fix.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

interface AxeResults {
  violations: {
    id: string;
    impact: string | null;
    nodes: { target: unknown[]; any: { message: string }[] }[];
  }[];
}

/** The critical and serious violations on the page as it is now, one line each: `rule: target why; ...`. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Colours read mid-transition (a scheme just switched, a control just moved) are neither the old nor the
  // new ones: wait for running CSS transitions to end first.
  await page.evaluate(
    'Promise.all(document.getAnimations().filter((a) => a instanceof CSSTransition).map((a) => a.finished.catch(() => undefined)))',
  );
  // Evaluated through the debugging protocol, which the page's content security policy does not govern.
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(
    (tags) =>
      // In the page, axe runs over the whole document when given options only.
      (globalThis as unknown as { axe: { run(options: unknown): Promise<AxeResults> } }).axe.run({
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      }),
    TAGS,
  );
  return results.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.nodes.map((n) => `${JSON.stringify(n.target)} ${n.any[0]?.message ?? ''}`).join('; ')}`,
    );
}
