import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appWithOneUser } from '../hardening/support';
import type { TestApp } from '../test/harness';
import { PROTOTYPE_KEY_MESSAGE } from './json-body';

/**
 * Prototype keys are refused by Fastify's parser with the error it gives broken JSON, so a client
 * that sent well-formed JSON holding one was told its body was not valid JSON.
 */
let t: TestApp;
let cookie: string;
beforeAll(async () => {
  ({ t, cookie } = await appWithOneUser());
});
afterAll(async () => {
  await t?.close();
});

const post = (payload: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/albums',
    headers: { cookie, 'content-type': 'application/json' },
    payload,
  });

describe('JSON bodies with prototype keys', () => {
  it.each([
    ['__proto__', '{"__proto__":{"isAdmin":true},"name":"A","photoIds":[]}'],
    ['__proto__ nested', '{"name":"A","photoIds":[],"x":{"__proto__":null}}'],
    ['constructor.prototype', '{"constructor":{"prototype":{"isAdmin":true}},"name":"A","photoIds":[]}'],
  ])('%s: 400, saying what is wrong, and nothing made', async (_what, payload) => {
    const res = await post(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(PROTOTYPE_KEY_MESSAGE);
    const albums = await t.app.inject({ url: '/api/albums', headers: { cookie } });
    expect(albums.json().filter((a: { name: string }) => a.name === 'A')).toEqual([]);
  });

  it('broken JSON is still told it is not valid JSON', async () => {
    for (const payload of ['{"name":', '{"__proto__":', "{'a':1}"]) {
      const res = await post(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('The request body is not valid JSON.');
    }
  });
});
