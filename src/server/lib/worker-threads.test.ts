import { Worker } from 'node:worker_threads';
import { expect, it } from 'vitest';
import { endProcess, leaveRunning } from './worker-threads';

const io = () => {
  const calls: string[] = [];
  return {
    calls,
    exit: (code: number) => void calls.push(`exit ${code}`),
    raise: (signal: NodeJS.Signals) => void calls.push(`raise ${signal}`),
    warn: () => undefined,
    pid: 4242,
  };
};

it('ends the process with exit 0, or by its signal while a thread is still inside native code', async () => {
  const idle = io();
  endProcess('SIGTERM', idle);
  expect(idle.calls).toEqual(['exit 0']);

  // process.exit terminates such a thread and waits for it: inside ONNX Runtime's run, that aborted
  // the process (exit 134) after its database was closed.
  const thread = new Worker('setInterval(() => {}, 1000)', { eval: true });
  leaveRunning(thread);
  const busy = io();
  endProcess('SIGTERM', busy);
  expect(busy.calls).toEqual(['raise SIGTERM']);

  await thread.terminate();
  const after = io();
  endProcess('SIGINT', after);
  expect(after.calls).toEqual(['exit 0']);
});

it("as a container's PID 1 (which ignores its own signal) it waits for such a thread, then exits 0", async () => {
  const thread = new Worker('setInterval(() => {}, 1000)', { eval: true });
  leaveRunning(thread);
  const init = { ...io(), pid: 1 };
  let exited!: () => void;
  const done = new Promise<void>((resolve) => (exited = resolve));
  init.exit = (code: number) => {
    init.calls.push(`exit ${code}`);
    exited();
  };
  endProcess('SIGTERM', init);
  // Neither raised (ignored there) nor exited (that would terminate the thread inside its run).
  expect(init.calls).toEqual([]);
  await new Promise((r) => setImmediate(r));
  expect(init.calls).toEqual([]);
  await thread.terminate();
  await done;
  expect(init.calls).toEqual(['exit 0']);
});
