/** The renderer's entry: connect to the core, then render the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Root } from './app/Root';
import { connectPorthole } from './platform';
import './styles/app.css';

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <Root connect={connectPorthole} />
  </StrictMode>,
);
