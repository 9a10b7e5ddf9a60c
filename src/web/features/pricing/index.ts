import { lazy } from 'react';

export const PricingPage = lazy(() => import('./pricing-page'));
