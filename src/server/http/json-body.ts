import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors';

export const NUL_IN_JSON_MESSAGE = 'Text in the request cannot contain the NUL character (\\u0000).';
export const PROTOTYPE_KEY_MESSAGE = 'The request body cannot hold "__proto__" or "constructor.prototype" keys.';

/**
 * Whether JSON text holds the escape of U+0000 (JSON has no other way to carry it: a raw control
 * character in a string is invalid JSON). An escaped backslash before 'u0000' ("\\u0000", the six
 * characters) is text, not a NUL, so escapes are read in pairs from the left.
 */
export function jsonHasNul(text: string): boolean {
  // Nearly every body: one native search, no loop.
  if (!text.includes('\\u0000')) return false;
  for (let i = text.indexOf('\\'); i !== -1 && i < text.length; i = text.indexOf('\\', i)) {
    if (text.startsWith('u0000', i + 1)) return true;
    i += 2;
  }
  return false;
}

/**
 * The app's JSON body parser: Fastify's own (prototype and constructor poisoning refused), after
 * refusing a NUL anywhere in the text. PostgreSQL stores no NUL in text or jsonb, so a NUL that
 * reached a query failed the statement (a 500: album names, sign-up names, activity ids...);
 * refused here, before any route reads the body, no field can forget it. Routes that need the raw
 * bytes (the Stripe webhook) remove this parser in their own scope.
 */
export function registerJsonBodyParser(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (jsonHasNul(text)) {
      done(badRequest(NUL_IN_JSON_MESSAGE), undefined);
      return;
    }
    parse(request, text, (err, parsed) => {
      // Fastify refuses prototype keys as it refuses broken JSON, with one error for both: a client
      // that sent well-formed JSON was told it had not. Told apart here, on the refusal path only.
      if (err && isWellFormed(text)) done(badRequest(PROTOTYPE_KEY_MESSAGE), undefined);
      else done(err, parsed);
    });
  });
}

function isWellFormed(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
