import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { keepFirstPaint } from './app/first-paint';
import './styles.css';

const container = document.getElementById('root')!;
keepFirstPaint(container);
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
