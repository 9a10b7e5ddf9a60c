import type { Invoice } from '@contract/subscriptions';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { slowRead } from '../../lib/api';

/** GET /api/billing/invoices: the user's Stripe invoices (empty when payments are not configured). */
export const invoicesQueryOptions = () =>
  queryOptions<{ invoices: Invoice[] }>({ queryKey: ['/api/billing/invoices'], staleTime: 60_000, meta: slowRead });

export const useInvoices = () => useQuery(invoicesQueryOptions());
