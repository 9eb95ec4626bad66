/**
 * `Include` for ssh_config, done as text expansion before parsing (the ssh-config library
 * keeps Include lines but never reads the files).
 *
 * ssh(1) restores the enclosing Host/Match scope after an included file, and applies an
 * Include inside a Host block only when that block matches. Text expansion reproduces this
 * exactly in two cases, which are the ones seen in practice:
 * - Include at top level (`Include ~/.ssh/config.d/*`): the files are inlined and a
 *   `Match all` after them returns to top-level scope.
 * - Include inside a Host/Match block of a file that has no Host/Match lines of its own:
 *   inlined into the block.
 * An included file with its own Host/Match lines inside a block is skipped with a warning
 * rather than applied to the wrong hosts.
 */
import { readFile, readdir } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { wildcardMatches } from './known-hosts';

export interface IncludeContext {
  /** The file being expanded, for warnings. */
  readonly path: string;
  /** Where relative include paths start (~/.ssh or /etc/ssh). */
  readonly includeBase: string;
  readonly homeDir: string;
  readonly warnings: string[];
}

/** ssh's own limit on nested includes. */
const maxDepth = 16;

const sectionLine = /^\s*(host|match)(\s|=)/i;
const includeLine = /^\s*include(?:\s+|\s*=\s*)(.+?)\s*$/i;

export async function expandIncludes(
  text: string,
  context: IncludeContext,
  depth = 0,
): Promise<string> {
  const out: string[] = [];
  let inSection = false;
  for (const line of text.split(/\r?\n/)) {
    if (sectionLine.test(line)) inSection = true;
    const include = includeLine.exec(line);
    if (include === null) {
      out.push(line);
      continue;
    }
    if (depth >= maxDepth) {
      context.warnings.push(`${context.path}: includes nested deeper than ${maxDepth}; skipped.`);
      continue;
    }
    for (const pattern of splitWords(include[1]!)) {
      for (const file of await expandPattern(pattern, context)) {
        let included: string;
        try {
          included = await readFile(file, 'utf8');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
            context.warnings.push(`Could not read ${file}: ${(error as Error).message}`);
          }
          continue;
        }
        const expanded = await expandIncludes(included, { ...context, path: file }, depth + 1);
        const hasSections = expanded.split(/\r?\n/).some((l) => sectionLine.test(l));
        if (!hasSections) {
          out.push(expanded);
        } else if (!inSection) {
          out.push(expanded, 'Match all');
        } else {
          context.warnings.push(
            `${context.path}: "${line.trim()}" inside a Host/Match block includes ${file}, which has Host/Match blocks of its own; Porthole skipped it.`,
          );
        }
      }
    }
  }
  return out.join('\n');
}

/** Include arguments: whitespace-separated, double quotes group. */
function splitWords(value: string): string[] {
  const words: string[] = [];
  for (const match of value.matchAll(/"([^"]*)"|(\S+)/g)) words.push(match[1] ?? match[2]!);
  return words;
}

/** Expands `~`, a relative path and wildcards in each path component, sorted like glob(3). */
async function expandPattern(pattern: string, context: IncludeContext): Promise<string[]> {
  let path = pattern;
  if (path === '~' || path.startsWith('~/')) path = join(context.homeDir, path.slice(1));
  if (!isAbsolute(path)) path = join(context.includeBase, path);
  if (!/[*?]/.test(path)) return [path];
  const parts = path.split('/').filter((part) => part !== '');
  let current = ['/'];
  for (const part of parts) {
    const next: string[] = [];
    for (const base of current) {
      if (!/[*?]/.test(part)) {
        next.push(join(base, part));
        continue;
      }
      let names: string[];
      try {
        names = await readdir(base);
      } catch {
        continue;
      }
      for (const name of names.sort()) {
        // glob(3) does not let wildcards match a leading dot.
        if (name.startsWith('.') && !part.startsWith('.')) continue;
        if (wildcardMatches(part, name)) next.push(join(base, name));
      }
    }
    current = next;
  }
  return current.filter((p) => basename(p) !== '' && dirname(p) !== p);
}
