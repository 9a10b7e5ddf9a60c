import { lazy } from 'react';

export { forgetAnswersOnAccountChange, recheckSessionOn401, useAuth, useLogout, userQueryOptions } from './use-auth';

// The forms load with their screen: a signed-in visit downloads neither react-hook-form nor zod.
export const LoginPage = lazy(() => import('./login-page'));
export const RegisterPage = lazy(() => import('./register-page'));
export const ForgotPasswordPage = lazy(() => import('./forgot-password-page'));
