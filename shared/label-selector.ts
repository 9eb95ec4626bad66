/**
 * Label selectors as Porthole reads them (Run on many, Copy as crictl): comma-separated
 * terms that must all hold, the ones crictl and the kubelet know (`key=value`) plus
 * `key!=value`, `key` (the label exists) and `!key` (it does not). Pure: the core
 * matches with it and the UI says which terms crictl can express.
 */
import { AppError } from './errors';

export type LabelTerm =
  | { readonly op: 'equals'; readonly key: string; readonly value: string }
  | { readonly op: 'not-equals'; readonly key: string; readonly value: string }
  | { readonly op: 'exists'; readonly key: string }
  | { readonly op: 'absent'; readonly key: string };

const maxSelectorLength = 1024;

function invalid(message: string, hint?: string): AppError {
  return new AppError({ code: 'invalid-argument', message, ...(hint !== undefined && { hint }) });
}

/** A label key or value: what Kubernetes allows, loosely (the runtime holds any string). */
const token = /^[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?$/;

/**
 * Parses `app=web,tier!=db,canary,!legacy`. An empty selector is refused: it would run on
 * every container, which the user says with a name pattern `.` instead.
 */
export function parseLabelSelector(text: string): readonly LabelTerm[] {
  if (text.length > maxSelectorLength) throw invalid('The label selector is too long.');
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) {
    throw invalid('The label selector is empty.', 'Write key=value, e.g. app=web.');
  }
  return parts.map((part): LabelTerm => {
    const check = (name: string, what: string): string => {
      if (!token.test(name)) {
        throw invalid(
          `"${part}" is not a label term: ${what} "${name}" has characters a label can't have.`,
          'Terms are key=value, key!=value, key or !key, separated by commas.',
        );
      }
      return name;
    };
    const notEquals = part.indexOf('!=');
    if (notEquals > 0) {
      return {
        op: 'not-equals',
        key: check(part.slice(0, notEquals).trim(), 'the key'),
        value: checkValue(part.slice(notEquals + 2).trim(), part),
      };
    }
    const equals = part.indexOf('=');
    if (equals > 0) {
      const rest = part.slice(equals + 1);
      const value = rest.startsWith('=') ? rest.slice(1) : rest;
      return {
        op: 'equals',
        key: check(part.slice(0, equals).trim(), 'the key'),
        value: checkValue(value.trim(), part),
      };
    }
    if (part.startsWith('!')) return { op: 'absent', key: check(part.slice(1).trim(), 'the key') };
    return { op: 'exists', key: check(part, 'the key') };
  });
}

function checkValue(value: string, part: string): string {
  // An empty value is a label value Kubernetes allows.
  if (value !== '' && !token.test(value)) {
    throw invalid(
      `"${part}" is not a label term: the value "${value}" has characters a label value can't have.`,
    );
  }
  return value;
}

export function matchesLabels(
  terms: readonly LabelTerm[],
  labels: Readonly<Record<string, string>>,
): boolean {
  return terms.every((term) => {
    const has = Object.hasOwn(labels, term.key);
    switch (term.op) {
      case 'equals':
        return has && labels[term.key] === term.value;
      case 'not-equals':
        return !has || labels[term.key] !== term.value;
      case 'exists':
        return has;
      case 'absent':
        return !has;
    }
  });
}

/** The terms the runtime can filter on itself (CRI's label selector is equality only). */
export function equalityLabels(terms: readonly LabelTerm[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const term of terms) if (term.op === 'equals') labels[term.key] = term.value;
  return labels;
}
