import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWithOneUser } from '../hardening/support';
import type { TestApp } from '../test/harness';
import { BAD_URL_MESSAGE, LONG_PATH_MESSAGE } from './errors';
import { API_CACHE_CONTROL } from './security-headers';

/**
 * The router refuses some paths before any hook runs: an escape that does not decode, and a path
 * parameter past its length limit. Those answers went out in Fastify's own format, repeating the
 * whole path as their message, without the security headers and the cache policy the hooks set.
 */
let t: TestApp;
let cookie: string;
beforeAll(async () => {
  ({ t, cookie } = await appWithOneUser());
});
afterAll(async () => {
  await t?.close();
});

describe("the router's own refusals", () => {
  it.each([
    ['an escape that does not decode', '/api/photos/%zz/info', 400, BAD_URL_MESSAGE, 'bad_url'],
    ['a lone %', '/api/photos/%', 400, BAD_URL_MESSAGE, 'bad_url'],
    ['an id past the length limit', `/api/photos/${'a'.repeat(3_000)}`, 414, LONG_PATH_MESSAGE, 'uri_too_long'],
    ['a variant past the length limit', `/api/photos/x/${'b'.repeat(500)}`, 414, LONG_PATH_MESSAGE, 'uri_too_long'],
  ])(
    '%s: the app error format, the security headers and the cache policy',
    async (_what, url, status, message, code) => {
      const res = await t.app.inject({ url, headers: { cookie } });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({ message, code });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe(API_CACHE_CONTROL);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    },
  );

  it('a page path with a bad escape gets the security headers but no API cache policy', async () => {
    const res = await t.app.inject({ url: '/gallery%zz' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(BAD_URL_MESSAGE);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['cache-control']).toBeUndefined();
  });
});
