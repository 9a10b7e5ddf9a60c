import { forgetServerClock, noteServerDate, serverNow } from './server-clock';

const answer = (date?: string) => ({ headers: new Headers(date ? { date } : {}) });

afterEach(() => {
  vi.useRealTimers();
  forgetServerClock();
});

describe('server clock', () => {
  it("follows the server's Date header, takes differences within its accuracy as none, and ignores answers without one", () => {
    const device = new Date('2026-03-10T12:00:00Z');
    vi.useFakeTimers({ now: device, toFake: ['Date'] });
    expect(serverNow()).toBe(device.getTime());
    // The header counts whole seconds: the server is somewhere in its second, half of it on average.
    noteServerDate(answer(new Date(device.getTime() - 10 * 60_000).toUTCString()));
    expect(serverNow()).toBe(device.getTime() - 10 * 60_000 + 500);
    noteServerDate(answer());
    noteServerDate(answer('not a date'));
    expect(serverNow()).toBe(device.getTime() - 10 * 60_000 + 500);
    noteServerDate(answer(new Date(device.getTime() - 1_000).toUTCString()));
    expect(serverNow()).toBe(device.getTime());
  });
});
