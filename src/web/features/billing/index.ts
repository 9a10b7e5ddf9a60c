import { lazy } from 'react';

export const BillingPage = lazy(() => import('./billing-page'));
