// @vitest-environment jsdom
import { rememberTimeZone } from './browser-time-zone';

describe('rememberTimeZone', () => {
  it("tells the server the browser's zone in a cookie on every path, so a painted page shows dates as the app does", () => {
    rememberTimeZone('America/New_York');
    expect(document.cookie.split('; ')).toContain('eyevu_tz=America%2FNew_York');
    rememberTimeZone('Asia/Tokyo');
    expect(document.cookie.split('; ')).toContain('eyevu_tz=Asia%2FTokyo');
  });
});
