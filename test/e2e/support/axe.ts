/**
 * axe-core in the page under test: WCAG 2.0–2.2 A and AA rules plus axe's best practices,
 * run on the whole document. The script goes in through Playwright's evaluate (the
 * DevTools protocol), which the app's Content-Security-Policy does not cover: no test hook
 * in the app, no relaxed policy.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, ImpactValue, Result } from 'axe-core';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/** What the suite fails on; moderate and minor ones are counted and named, not fatal. */
export const failingImpacts: readonly ImpactValue[] = ['critical', 'serious'];

export const axeTags = [
  'wcag2a',
  'wcag2aa',
  'wcag21a',
  'wcag21aa',
  'wcag22aa',
  'best-practice',
] as const;

export interface AxeCount {
  /** Violating nodes by impact. */
  readonly critical: number;
  readonly serious: number;
  readonly moderate: number;
  readonly minor: number;
  /** The critical and serious ones: rule, impact, and where (a few selectors each). */
  readonly failing: readonly string[];
}

export async function runAxe(page: Page): Promise<AxeCount> {
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.evaluate(axeSource);
  const results = await page.evaluate(
    (tags) =>
      (
        window as unknown as {
          axe: { run(context: Document, options: unknown): Promise<AxeResults> };
        }
      ).axe.run(document, {
        runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'],
      }),
    [...axeTags],
  );
  return countViolations(results.violations);
}

export function countViolations(violations: readonly Result[]): AxeCount {
  const count = { critical: 0, serious: 0, moderate: 0, minor: 0 };
  const failing: string[] = [];
  for (const violation of violations) {
    const impact = violation.impact ?? 'minor';
    count[impact] += violation.nodes.length;
    if (!failingImpacts.includes(impact)) continue;
    // One line per distinct finding (a colour pair, a missing attribute), with where it is first.
    const findings = new Map<string, { target: string; nodes: number }>();
    for (const node of violation.nodes) {
      const summary = (node.failureSummary ?? '').split('\n').slice(1).join(' ').trim();
      const finding = findings.get(summary);
      if (finding === undefined) findings.set(summary, { target: node.target.join(' '), nodes: 1 });
      else finding.nodes += 1;
    }
    for (const [summary, { target, nodes }] of findings)
      failing.push(`${violation.id} (${impact}) ×${nodes} ${target}: ${summary}`);
  }
  return { ...count, failing };
}
