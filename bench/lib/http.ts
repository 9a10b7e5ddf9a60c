/** Talking to a running server as a user: register over the API and keep the session cookie. */
import { randomBytes } from 'node:crypto';

export interface Session {
  url: string;
  email: string;
  password: string;
  cookie: string;
}

export async function register(url: string, label = 'bench'): Promise<Session> {
  const email = `${label}-${randomBytes(4).toString('hex')}@example.com`;
  const password = 'secret123';
  const res = await fetch(`${url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ firstName: 'Bench', lastName: 'Mark', email, password }),
  });
  if (!res.ok) throw new Error(`register failed ${res.status}: ${await res.text()}`);
  return { url, email, password, cookie: cookieFrom(res) };
}

export async function login(url: string, email: string, password: string): Promise<Session> {
  const res = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (!res.ok) throw new Error(`login failed ${res.status}: ${await res.text()}`);
  return { url, email, password, cookie: cookieFrom(res) };
}

function cookieFrom(res: Response): string {
  const set = res.headers.getSetCookie();
  const pair = set.map((c) => c.split(';')[0]!).filter(Boolean);
  if (!pair.length) throw new Error('no session cookie in the response');
  return pair.join('; ');
}

export async function getJson<T>(s: Session, pathname: string): Promise<T> {
  const res = await fetch(`${s.url}${pathname}`, { headers: { cookie: s.cookie } });
  if (!res.ok) throw new Error(`GET ${pathname} ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** Waits until none of this user's analysis jobs is queued or running (uploads enqueue one each). */
export async function waitAnalysisIdle(s: Session, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const st = await getJson<{ pending: number }>(s, '/api/photos/analysis-status');
    if (st.pending === 0) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('analysis queue still busy');
}
