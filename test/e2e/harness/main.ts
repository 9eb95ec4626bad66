/**
 * The renderer over an in-memory Porthole fed by the fake core, for the UI bench and for
 * looking at big tables: `?containers=5000&nodes=1&view=containers` (a fleet:
 * `?nodes=500&containers=50000&view=nodes`). No host, no runtime.
 */
import { createElement, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from '../../../renderer/src/app/App';
import { ModelProvider } from '../../../renderer/src/app/context';
import { createAppModel, type AppModel } from '../../../renderer/src/app/model';
import { createInMemoryPorthole } from '../../../renderer/src/platform';
import '../../../renderer/src/styles/app.css';
import { createFakeCore, type FakeCore } from '../fixtures/fake-core';

declare global {
  interface Window {
    /** For the bench: the model, to drive and observe the app without a mouse. */
    portholeHarness?: { model: AppModel; core: FakeCore; containers: number };
  }
}

const params = new URLSearchParams(window.location.search);
const containers = Number(params.get('containers') ?? '5000');
const nodes = Number(params.get('nodes') ?? '1');
const containersPerPod = 2;
const core = createFakeCore({
  nodes,
  podsPerNode: Math.ceil(containers / nodes / containersPerPod),
  containersPerPod,
});
const model = createAppModel(createInMemoryPorthole(core.services, core.events), {
  initialView: params.get('view') ?? 'nodes',
});
window.portholeHarness = { model, core, containers };

const container = document.getElementById('root');
if (container === null) throw new Error('no #root');
// createElement rather than JSX: the test tsconfig compiles .ts files only.
createRoot(container).render(
  createElement(
    StrictMode,
    null,
    createElement(ModelProvider, { model, children: createElement(App) }),
  ),
);
