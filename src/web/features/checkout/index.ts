import { lazy } from 'react';

export const CheckoutPage = lazy(() => import('./checkout-page'));
