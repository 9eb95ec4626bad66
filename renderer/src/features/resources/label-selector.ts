import type { StringMap } from '../../../../shared/model';

/**
 * Kubernetes label selectors, as `kubectl get -l` reads them: `app=web,tier!=db`,
 * `env in (prod,staging)`, `release notin (canary)`, `gpu`, `!legacy`.
 */
export type Requirement =
  | { readonly key: string; readonly op: 'exists' | 'not-exists' }
  | { readonly key: string; readonly op: 'in' | 'not-in'; readonly values: readonly string[] };

export type SelectorParse =
  | { readonly ok: true; readonly requirements: readonly Requirement[] }
  | { readonly ok: false; readonly error: string };

const keyPattern = /^[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?$/;

/** Splits on commas that are not inside a `( … )` value list. */
function splitTopLevel(text: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (char === '(') depth += 1;
    else if (char === ')') {
      depth -= 1;
      if (depth < 0) return undefined;
    } else if (char === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) return undefined;
  parts.push(text.slice(start));
  return parts;
}

function parseRequirement(raw: string): Requirement | string {
  const text = raw.trim();
  if (text === '') return 'An empty requirement: remove the extra comma.';

  const setMatch = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(text);
  if (setMatch !== null) {
    const [, key = '', op, list = ''] = setMatch;
    if (!keyPattern.test(key)) return `"${key}" is not a valid label key.`;
    const values = list
      .split(',')
      .map((value) => value.trim())
      .filter((value) => value !== '');
    if (values.length === 0) return `"${key} ${op} ()" needs at least one value.`;
    return { key, op: op === 'in' ? 'in' : 'not-in', values };
  }

  const compareMatch = /^([^=!\s]+)\s*(!=|==|=)\s*(.*)$/.exec(text);
  if (compareMatch !== null) {
    const [, key = '', op, value = ''] = compareMatch;
    if (!keyPattern.test(key)) return `"${key}" is not a valid label key.`;
    if (/[\s()]/.test(value)) return `"${value}" is not a valid label value.`;
    return { key, op: op === '!=' ? 'not-in' : 'in', values: [value] };
  }

  if (text.startsWith('!')) {
    const key = text.slice(1).trim();
    if (!keyPattern.test(key)) return `"${key}" is not a valid label key.`;
    return { key, op: 'not-exists' };
  }
  if (!keyPattern.test(text)) {
    return `"${text}" is not a requirement: write key, !key, key=value, key!=value or key in (a,b).`;
  }
  return { key: text, op: 'exists' };
}

export function parseLabelSelector(text: string): SelectorParse {
  if (text.trim() === '') return { ok: true, requirements: [] };
  const parts = splitTopLevel(text);
  if (parts === undefined) return { ok: false, error: 'Unbalanced parentheses.' };
  const requirements: Requirement[] = [];
  for (const part of parts) {
    const parsed = parseRequirement(part);
    if (typeof parsed === 'string') return { ok: false, error: parsed };
    requirements.push(parsed);
  }
  return { ok: true, requirements };
}

export function matchesRequirement(labels: StringMap, requirement: Requirement): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  switch (requirement.op) {
    case 'exists':
      return has;
    case 'not-exists':
      return !has;
    case 'in':
      return has && requirement.values.includes(labels[requirement.key] ?? '');
    case 'not-in':
      // As in Kubernetes: a missing label satisfies `!=` and `notin`.
      return !has || !requirement.values.includes(labels[requirement.key] ?? '');
  }
}

export function matchesSelector(labels: StringMap, requirements: readonly Requirement[]): boolean {
  return requirements.every((requirement) => matchesRequirement(labels, requirement));
}
