import { ConfigError, loadConfig, parseBlobStoreUrl } from './config';

describe('object store and process settings', () => {
  const keys = { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' };

  it('BLOB_STORE_URL: bucket, prefix, custom endpoint (path-style), region and keys from the standard variables', () => {
    const c = loadConfig({
      BLOB_STORE_URL: 's3://eyevu-photos/prod/v1?endpoint=http://127.0.0.1:9000',
      AWS_REGION: 'eu-west-1',
      ...keys,
    });
    expect(c.objectStore).toEqual({
      bucket: 'eyevu-photos',
      prefix: 'prod/v1/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: undefined },
    });
    // AWS itself: virtual-hosted addressing; no keys means the SDK's own chain (an instance role).
    expect(parseBlobStoreUrl('s3://eyevu-photos?region=us-west-2')).toMatchObject({
      endpoint: undefined,
      region: 'us-west-2',
      forcePathStyle: false,
      credentials: undefined,
    });
    expect(loadConfig({}).objectStore).toBeUndefined();
  });

  it('refuses a bad BLOB_STORE_URL, keys in the URL, half a key pair, or BLOB_DIR beside it, naming the setting', () => {
    const bad = {
      'https://bucket': /only s3:\/\//,
      's3://Bad_Bucket': /not a bucket name/,
      's3://bucket?endpoint=ftp://x': /endpoint must be an http/,
      's3://bucket?acl=public': /unknown option "acl"/,
      's3://bucket/a//b': /prefix/,
      's3://key:secret@bucket': /not the URL/,
      's3://bucket?forcePathStyle=yes': /forcePathStyle must be true or false/,
    };
    for (const [url, why] of Object.entries(bad)) {
      expect(() => loadConfig({ BLOB_STORE_URL: url })).toThrow(ConfigError);
      expect(() => loadConfig({ BLOB_STORE_URL: url })).toThrow(why);
    }
    expect(() => loadConfig({ BLOB_STORE_URL: 's3://bucket', AWS_ACCESS_KEY_ID: 'only-one' })).toThrow(
      /AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: set both/,
    );
    expect(() => loadConfig({ BLOB_STORE_URL: 's3://bucket', BLOB_DIR: '/srv/blobs' })).toThrow(/set one/);
  });

  it('RATE_LIMITS=off (load tests) is honoured only on a loopback listener; limits are on by default', () => {
    expect(loadConfig({}).rateLimits['POST /api/auth/login']?.length).toBeGreaterThan(0);
    expect(loadConfig({ HOST: '127.0.0.1', RATE_LIMITS: 'off' }).rateLimits).toEqual({});
    expect(loadConfig({ HOST: '::1', RATE_LIMITS: 'off' }).rateLimits).toEqual({});
    for (const host of ['0.0.0.0', '192.168.1.5', 'eyevu.example']) {
      expect(() => loadConfig({ HOST: host, RATE_LIMITS: 'off' })).toThrow(/RATE_LIMITS=off .* needs a loopback HOST/);
    }
    // Behind a proxy a loopback listener is reachable by everyone the proxy serves.
    expect(() => loadConfig({ HOST: '127.0.0.1', TRUST_PROXY: '1', RATE_LIMITS: 'off' })).toThrow(/no TRUST_PROXY/);
    expect(() => loadConfig({ HOST: '127.0.0.1', RATE_LIMITS: 'false' })).toThrow(/RATE_LIMITS/);
  });

  it('WEB_CONCURRENCY above 1 needs PostgreSQL: the embedded PGlite is refused with the reason', () => {
    expect(loadConfig({}).webConcurrency).toBe(1);
    expect(() => loadConfig({ WEB_CONCURRENCY: '2' })).toThrow(
      /WEB_CONCURRENCY=2 needs DATABASE_URL: the embedded PGlite database runs inside one process/,
    );
    expect(loadConfig({ WEB_CONCURRENCY: '4', DATABASE_URL: 'postgres://u@db/eyevu' }).webConcurrency).toBe(4);
    expect(() => loadConfig({ WEB_CONCURRENCY: '0', DATABASE_URL: 'postgres://u@db/eyevu' })).toThrow(
      /WEB_CONCURRENCY/,
    );
  });

  it('DATABASE_POOL_MAX sizes the PostgreSQL pool: an integer from 3 to 100, 10 by default', () => {
    expect(loadConfig({}).databasePoolMax).toBe(10);
    expect(loadConfig({ DATABASE_POOL_MAX: '3' }).databasePoolMax).toBe(3);
    expect(loadConfig({ DATABASE_POOL_MAX: '100' }).databasePoolMax).toBe(100);
    for (const bad of ['0', '1', '2', '101', '2.5', 'ten', '-1']) {
      expect(() => loadConfig({ DATABASE_POOL_MAX: bad })).toThrow(/DATABASE_POOL_MAX/);
    }
  });
});
