import net from 'node:net';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import {
  initCluster,
  postmasterPid,
  startPostmasterOnFreePort,
  stopCluster,
  type InitialisedCluster,
} from '../../../../scripts/pg-cluster.mjs';

let cluster: InitialisedCluster | undefined;
afterAll(() => {
  if (cluster) stopCluster(cluster.dir);
});

it('a test cluster whose port was taken after it was picked starts on another one', async () => {
  cluster = await initCluster('eyevu-pgport-');
  const picked = cluster.port;
  // Someone else binds the picked port between initdb and the start, as another test's server may.
  const squatter = net.createServer();
  await new Promise<void>((resolve) => squatter.listen(picked, '127.0.0.1', resolve));
  try {
    await startPostmasterOnFreePort(cluster, 20);
  } finally {
    await new Promise((resolve) => squatter.close(resolve));
  }
  expect(cluster.port).not.toBe(picked);
  expect(cluster.url).toContain(`:${cluster.port}/`);
  expect(postmasterPid(cluster.data)).toBeGreaterThan(0);
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  const { rows } = await client.query<{ one: number }>('select 1 as one');
  await client.end();
  expect(rows).toEqual([{ one: 1 }]);
}, 180_000);
