import { config } from 'zod';

/**
 * Import before any module that builds zod schemas in the browser (the auth screens). Zod otherwise
 * probes `new Function('')` when the first object schema is created; our CSP has no 'unsafe-eval', so
 * the swallowed probe still shows up as a Content Security Policy issue (Lighthouse best practices).
 * Jitless parsing is plenty fast for form validation. The server keeps zod's JIT.
 */
config({ jitless: true });
