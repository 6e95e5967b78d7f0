// The page's entry, kept small: it starts the engine worker (boot.ts), then loads the page itself
// (app.ts: views, editor, results, charts). The worker's wasm download and compile overlap the
// page's own script loading instead of waiting for it.
import './styles/main.css';
import './boot';

import('./app').catch((e: unknown) => {
  const status = document.querySelector('[data-testid="status"]');
  if (status) {
    status.setAttribute('data-state', 'error');
    status.textContent = `The page could not be loaded: ${e instanceof Error ? e.message : String(e)}`;
  }
});
