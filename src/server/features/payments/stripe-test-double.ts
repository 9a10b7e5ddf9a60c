/**
 * Test-only: a tiny local stand-in for the parts of Stripe's HTTP API Eyevu calls, on 127.0.0.1 at
 * a random port. The real `stripe` SDK is pointed at it through `config.stripeApi`, so the SDK's
 * own encoding, idempotency headers and response parsing are exercised. Answers mirror Stripe's
 * JSON shapes (API version 2025+: invoice.confirmation_secret, item-level current_period_end).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  params: URLSearchParams;
  idempotencyKey?: string;
  authorization?: string;
}

type Obj = Record<string, unknown>;
const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const nowSec = () => Math.floor(Date.now() / 1000);

/** Collects `metadata[key]=value` style form params into an object. */
function nested(params: URLSearchParams, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of params) {
    const m = new RegExp(`^${name}\\[([^\\]]+)\\]$`).exec(k);
    if (m) out[m[1]!] = v;
  }
  return out;
}
/** `expand[0]=a&expand[1]=b` or `expand[]=a`. */
function list(params: URLSearchParams, name: string): string[] {
  const out: string[] = [];
  for (const [k, v] of params) if (k === name || k.startsWith(`${name}[`)) out.push(v);
  return out;
}

export async function startStripeDouble() {
  const requests: RecordedRequest[] = [];
  const prices: Obj[] = [];
  const customers: Obj[] = [];
  const subscriptions: Obj[] = [];
  const invoices: Obj[] = [];
  const idempotent = new Map<string, { status: number; body: unknown }>();
  /** Scripted failures, used once each by the first request they match. */
  const failures: Array<{ method: string; path: RegExp; status: number; body: unknown }> = [];
  const gathers: Array<{ method: string; path: RegExp; count: number; held: Array<() => void> }> = [];
  /** Answers made when their request arrived and sent when released (see `holdAnswer`). */
  const answerHolds: Array<{ method: string; path: RegExp; skip: number; gate: Promise<void>; reached: () => void }> =
    [];

  const listOf = (data: unknown[], url: string) => ({ object: 'list', data, has_more: false, url });

  function invoiceFor(sub: Obj, price: Obj, status: string): Obj {
    const start = nowSec();
    const end = start + ((price.recurring as Obj).interval === 'year' ? 365 : 30) * 86400;
    const invoiceId = id('in');
    const inv: Obj = {
      id: invoiceId,
      object: 'invoice',
      customer: sub.customer,
      number: `EYE-${String(invoices.length + 1).padStart(4, '0')}`,
      amount_due: price.unit_amount,
      amount_paid: status === 'paid' ? price.unit_amount : 0,
      currency: 'usd',
      status,
      created: start,
      hosted_invoice_url: `https://invoice.stripe.test/${invoiceId}`,
      confirmation_secret: {
        client_secret: `${id('pi')}_secret_${randomBytes(6).toString('hex')}`,
        type: 'payment_intent',
      },
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { subscription: sub.id, metadata: sub.metadata },
      },
      lines: {
        object: 'list',
        data: [{ id: id('il'), object: 'line_item', amount: price.unit_amount, period: { start, end } }],
        has_more: false,
      },
    };
    invoices.push(inv);
    return inv;
  }

  function expandSub(sub: Obj, expand: string[]): Obj {
    const out = { ...sub };
    if (expand.some((e) => e.endsWith('latest_invoice') || e.includes('latest_invoice.'))) {
      const inv = invoices.find((i) => i.id === sub.latest_invoice);
      out.latest_invoice = inv ?? null;
    }
    return out;
  }

  function route(method: string, path: string, params: URLSearchParams): { status: number; body: unknown } {
    if (method === 'GET' && path === '/v1/prices') {
      const keys = list(params, 'lookup_keys');
      const active = params.get('active');
      const data = prices.filter(
        (p) => keys.includes(p.lookup_key as string) && (active === null || String(p.active) === active),
      );
      return { status: 200, body: listOf(data, '/v1/prices') };
    }
    if (method === 'POST' && path === '/v1/prices') {
      const lookupKey = params.get('lookup_key');
      if (lookupKey && params.get('transfer_lookup_key') === 'true') {
        for (const p of prices) if (p.lookup_key === lookupKey) p.lookup_key = null;
      }
      const price: Obj = {
        id: id('price'),
        object: 'price',
        active: true,
        currency: params.get('currency'),
        unit_amount: Number(params.get('unit_amount')),
        recurring: { interval: params.get('recurring[interval]'), interval_count: 1 },
        lookup_key: lookupKey,
        product: id('prod'),
        metadata: nested(params, 'metadata'),
        type: 'recurring',
      };
      prices.push(price);
      return { status: 200, body: price };
    }
    if (method === 'POST' && path === '/v1/customers') {
      const customer: Obj = {
        id: id('cus'),
        object: 'customer',
        email: params.get('email'),
        name: params.get('name'),
        metadata: nested(params, 'metadata'),
      };
      customers.push(customer);
      return { status: 200, body: customer };
    }
    if (method === 'GET' && path === '/v1/subscriptions') {
      const customer = params.get('customer');
      const price = params.get('price');
      const status = params.get('status');
      const limit = Number(params.get('limit') ?? 10);
      // As Stripe lists them: newest first, at most `limit`.
      const data = [...subscriptions]
        .reverse()
        .filter((s) => !customer || s.customer === customer)
        .filter((s) => !price || (s.items as { data: Obj[] }).data.some((i) => (i.price as Obj).id === price))
        .filter((s) => !status || status === 'all' || s.status === status)
        .slice(0, limit)
        .map((s) =>
          expandSub(
            s,
            list(params, 'expand').map((e) => e.replace(/^data\./, '')),
          ),
        );
      return { status: 200, body: listOf(data, '/v1/subscriptions') };
    }
    if (method === 'POST' && path === '/v1/subscriptions') {
      const priceId = params.get('items[0][price]');
      const price = prices.find((p) => p.id === priceId);
      if (!price || !customers.some((c) => c.id === params.get('customer'))) {
        return {
          status: 400,
          body: { error: { type: 'invalid_request_error', message: 'No such price or customer' } },
        };
      }
      const start = nowSec();
      const sub: Obj = {
        id: id('sub'),
        object: 'subscription',
        created: start,
        customer: params.get('customer'),
        status: params.get('payment_behavior') === 'default_incomplete' ? 'incomplete' : 'active',
        cancel_at_period_end: false,
        canceled_at: null,
        ended_at: null,
        metadata: nested(params, 'metadata'),
        payment_settings: { save_default_payment_method: params.get('payment_settings[save_default_payment_method]') },
        items: {
          object: 'list',
          data: [
            {
              id: id('si'),
              object: 'subscription_item',
              price,
              current_period_start: start,
              current_period_end: start + ((price.recurring as Obj).interval === 'year' ? 365 : 30) * 86400,
            },
          ],
        },
        latest_invoice: null,
      };
      sub.latest_invoice = invoiceFor(sub, price, 'open').id;
      subscriptions.push(sub);
      return { status: 200, body: expandSub(sub, list(params, 'expand')) };
    }
    const subPath = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
    if (subPath) {
      const sub = subscriptions.find((s) => s.id === subPath[1]);
      const missing = {
        status: 404,
        body: { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such subscription' } },
      };
      if (!sub) return missing;
      // As Stripe does: a cancelled subscription cannot be cancelled again.
      if (method === 'DELETE' && sub.status === 'canceled') return missing;
      if (method === 'POST' && params.has('cancel_at_period_end')) {
        sub.cancel_at_period_end = params.get('cancel_at_period_end') === 'true';
      }
      if (method === 'DELETE') {
        sub.status = 'canceled';
        sub.cancellation_details = {
          comment: params.get('cancellation_details[comment]'),
          reason: 'cancellation_requested',
        };
      }
      return { status: 200, body: expandSub(sub, list(params, 'expand')) };
    }
    const voidPath = /^\/v1\/invoices\/([^/]+)\/void$/.exec(path);
    if (method === 'POST' && voidPath) {
      const inv = invoices.find((i) => i.id === voidPath[1]);
      if (!inv) return { status: 404, body: { error: { type: 'invalid_request_error', code: 'resource_missing' } } };
      if (inv.status !== 'open') {
        return { status: 400, body: { error: { type: 'invalid_request_error', message: 'Invoice is not open' } } };
      }
      inv.status = 'void';
      return { status: 200, body: inv };
    }
    if (method === 'GET' && path === '/v1/invoices') {
      const customer = params.get('customer');
      const data = invoices.filter((i) => i.customer === customer).reverse();
      return { status: 200, body: listOf(data, '/v1/invoices') };
    }
    return {
      status: 404,
      body: { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` } },
    };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stripe.test');
      // The SDK sends a GET's or DELETE's parameters in the query string, others' in the body.
      const params = new URLSearchParams(
        req.method === 'GET' || req.method === 'DELETE' ? url.search : Buffer.concat(chunks).toString('utf8'),
      );
      const key = req.headers['idempotency-key'] as string | undefined;
      requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        params,
        idempotencyKey: key,
        authorization: req.headers.authorization,
      });
      const gatherAt = gathers.findIndex((g) => g.method === req.method && g.path.test(url.pathname));
      if (gatherAt >= 0) {
        const gather = gathers[gatherAt]!;
        gather.held.push(() => respond(req, res, url, params, key));
        if (gather.held.length < gather.count) return;
        gathers.splice(gatherAt, 1);
        for (const release of gather.held) release();
        return;
      }
      respond(req, res, url, params, key);
    });
  });
  function respond(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    params: URLSearchParams,
    key: string | undefined,
  ) {
    const failureAt = failures.findIndex((f) => f.method === req.method && f.path.test(url.pathname));
    if (failureAt >= 0) {
      const [failure] = failures.splice(failureAt, 1);
      // The SDK would otherwise retry a 5xx with real backoff sleeps.
      res.writeHead(failure!.status, {
        'content-type': 'application/json',
        'request-id': id('req'),
        'stripe-should-retry': 'false',
      });
      res.end(JSON.stringify(failure!.body));
      return;
    }
    const cacheKey = key ? `${req.method} ${url.pathname} ${key}` : undefined;
    const answer = (cacheKey && idempotent.get(cacheKey)) || route(req.method ?? 'GET', url.pathname, params);
    if (cacheKey && req.method === 'POST') idempotent.set(cacheKey, answer);
    const send = () => {
      res.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': id('req') });
      res.end(JSON.stringify(answer.body));
    };
    const holdAt = answerHolds.findIndex((h) => h.method === req.method && h.path.test(url.pathname));
    const hold = answerHolds[holdAt];
    if (hold && hold.skip > 0) hold.skip -= 1;
    else if (hold) {
      answerHolds.splice(holdAt, 1);
      hold.reached();
      void hold.gate.then(send);
      return;
    }
    send();
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    api: { host: '127.0.0.1', port, protocol: 'http' as const },
    requests,
    prices,
    customers,
    subscriptions,
    invoices,
    /** The next `method` request whose path matches answers `status` with `body` (no retry). */
    failNext(method: string, path: RegExp, status: number, body: unknown) {
      failures.push({ method, path, status, body });
    },
    /**
     * The next `count` `method` requests whose path matches are held until the last of them has
     * arrived, then answered together: concurrent callers are all past their reads before any acts.
     */
    gatherNext(method: string, path: RegExp, count: number) {
      gathers.push({ method, path, count, held: [] });
    },
    /**
     * The matching request after the next `skip` ones is answered as Stripe stood when it arrived,
     * but the answer reaches the caller only at `release()`: a read that others' writes overtake.
     * `reached` settles once that request has arrived.
     */
    holdAnswer(method: string, path: RegExp, skip = 0) {
      let release!: () => void;
      let reached!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const arrived = new Promise<void>((resolve) => (reached = resolve));
      answerHolds.push({ method, path, skip, gate, reached });
      return { reached: arrived, release };
    },
    /**
     * Marks a subscription's open invoice paid, as Stripe does after a successful confirmation.
     * Throws, as the payment form's confirmation fails, when that invoice was voided.
     */
    pay(subscriptionId: string) {
      const sub = subscriptions.find((s) => s.id === subscriptionId)!;
      const inv = invoices.find((i) => i.id === sub.latest_invoice)!;
      if (inv.status === 'void') throw new Error(`invoice ${String(inv.id)} is void: its payment was cancelled`);
      sub.status = 'active';
      inv.status = 'paid';
      inv.amount_paid = inv.amount_due;
      return { subscription: sub, invoice: inv };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type StripeDouble = Awaited<ReturnType<typeof startStripeDouble>>;
