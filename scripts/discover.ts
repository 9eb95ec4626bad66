/**
 * `npm run discover [-- --endpoint unix:///path.sock] [--json]`: the runtimes Porthole finds
 * on this machine, in crictl's order, with what each probe said. The same discovery the
 * app's Nodes view uses, for a terminal or a script.
 */
import { parseArgs } from 'node:util';
import { discoverEndpoints } from '../electron/core/base/connect';

const { values } = parseArgs({
  options: { endpoint: { type: 'string' }, json: { type: 'boolean', default: false } },
});

const result = await discoverEndpoints(
  values.endpoint ? { explicit: { endpoint: values.endpoint } } : {},
);

if (values.json) {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} else {
  for (const warning of result.warnings) process.stdout.write(`warning: ${warning}\n`);
  for (const endpoint of result.endpoints) {
    const { probe } = endpoint;
    const what =
      probe.state === 'ready'
        ? `${probe.info.runtimeName} ${probe.info.runtimeVersion} (CRI ${probe.info.runtimeApiVersion})`
        : `${probe.message}${probe.state !== 'absent' && probe.hint ? `\n      ${probe.hint}` : ''}`;
    process.stdout.write(
      `${probe.state.padEnd(8)} ${endpoint.endpoint}  [${endpoint.source}: ${endpoint.origin}]\n      ${what}\n`,
    );
  }
  for (const source of result.sources) {
    process.stdout.write(`read     ${source.where}: ${source.outcome}\n`);
  }
  const ready = result.endpoints.filter((e) => e.probe.state === 'ready').length;
  process.stdout.write(`\n${ready} runtime${ready === 1 ? '' : 's'} ready.\n`);
}
