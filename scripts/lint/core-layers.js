// @ts-check
/**
 * The core's inner layering, as a lint rule (VS Code's layer rule is the model). Inside
 * electron/core there is a base (base/: cri, connect, ssh, streaming, files, config…) and
 * features (features/<name>/: a manager, its contract adapter, its events), composed in
 * composition.ts:
 *
 * - the base never imports a feature, nor the composition root;
 * - a feature imports other features only through their index.ts, and never the root;
 * - whatever imports the base from outside it names a module's public surface: a folder
 *   with an index.ts, or a one-file module at base/'s top;
 * - test code (`*.test.ts`, `testing/`) may also import any `testing/` folder, and the
 *   composition root, to exercise the features as the app wires them.
 *
 * The rule resolves each relative import to a path, so it judges where an import lands,
 * not how its string is spelt. Bare imports (packages, node:*) are other rules' business.
 */
import { existsSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';

const corePrefix = ['electron', 'core'];

/**
 * Where a file or module sits: in the base, in a feature, elsewhere in the core (the
 * composition root, host/), or outside the core.
 * @param {string} root
 * @param {string} path absolute, without extension
 * @returns {{ layer: 'base' | 'feature' | 'core' | 'outside', name: string, rest: string[] }}
 */
function placeOf(root, path) {
  const parts = relative(root, path).split(sep);
  if (parts[0] !== corePrefix[0] || parts[1] !== corePrefix[1]) {
    return { layer: 'outside', name: '', rest: parts };
  }
  const [area, name = '', ...rest] = parts.slice(2);
  if (area === 'base') return { layer: 'base', name, rest };
  if (area === 'features') return { layer: 'feature', name, rest };
  return { layer: 'core', name: area ?? '', rest: [name, ...rest] };
}

/** @param {string} filename */
function isTestCode(filename) {
  return /\.test\.tsx?$/.test(filename) || filename.split(sep).includes('testing');
}

/** @param {string[]} rest */
function withoutIndex(rest) {
  return rest.at(-1) === 'index' ? rest.slice(0, -1) : rest;
}

/** @type {import('eslint').Rule.RuleModule} */
export const coreLayers = {
  meta: {
    type: 'problem',
    docs: { description: 'Inside electron/core: features stand on the base, never the reverse.' },
    schema: [],
    messages: {
      baseImportsFeature:
        "The base never imports a feature ('{{target}}'): move what both need into the base.",
      baseImportsRoot: "The base never imports the core's composition or host ('{{target}}').",
      featureImportsRoot:
        "A feature never imports the core's composition or host ('{{target}}'): take what it needs as a constructor argument.",
      featureInternals:
        "Import the '{{feature}}' feature through its index.ts ('{{index}}'), not its internals.",
      baseInternals:
        "Import the base through a module's index.ts, not its internals ('{{target}}').",
    },
  },
  create(context) {
    const root = context.cwd;
    const filename = context.filename;
    const from = placeOf(root, filename.replace(/\.tsx?$/, ''));
    if (from.layer === 'outside') return {};
    const testCode = isTestCode(filename);

    /** @param {import('estree').Node} node @param {unknown} source */
    function check(node, source) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const targetPath = resolve(dirname(filename), source).replace(/\.(js|ts|tsx)$/, '');
      const to = placeOf(root, targetPath);
      const target = source;
      if (to.layer === 'outside') return;
      const crossesInto = to.layer !== from.layer || to.name !== from.name;
      if (!crossesInto) return;
      const testing = testCode && to.rest.includes('testing');

      if (from.layer === 'base') {
        if (to.layer === 'feature') {
          context.report({ node, messageId: 'baseImportsFeature', data: { target } });
        } else if (to.layer === 'core') {
          context.report({ node, messageId: 'baseImportsRoot', data: { target } });
        }
        // Between base modules the folders are the base's own business.
        return;
      }
      if (from.layer === 'feature' && to.layer === 'core' && !testCode) {
        context.report({ node, messageId: 'featureImportsRoot', data: { target } });
        return;
      }
      if (to.layer === 'feature' && withoutIndex(to.rest).length > 0 && !testing) {
        const index = relative(
          dirname(filename),
          resolve(root, ...corePrefix, 'features', to.name),
        );
        context.report({
          node,
          messageId: 'featureInternals',
          data: { feature: to.name, index: index.startsWith('.') ? index : `./${index}` },
        });
        return;
      }
      if (to.layer === 'base' && !testing) {
        const inner = withoutIndex(to.rest);
        const isModuleRoot =
          inner.length === 0 ||
          existsSync(resolve(targetPath.replace(/[/\\]index$/, ''), 'index.ts'));
        if (!isModuleRoot) {
          context.report({ node, messageId: 'baseInternals', data: { target } });
        }
      }
    }

    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export const portholePlugin = { rules: { 'core-layers': coreLayers } };
