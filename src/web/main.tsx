import { startTransition, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { keepFirstPaint } from './app/first-paint';
import { rememberTimeZone } from './lib/browser-time-zone';
import './styles.css';

const container = document.getElementById('root')!;
keepFirstPaint(container);
rememberTimeZone();
// As a transition the first render yields to the browser every few milliseconds instead of holding
// the main thread for the whole tree; the served first paint stays on screen until it commits.
startTransition(() => {
  createRoot(container).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
