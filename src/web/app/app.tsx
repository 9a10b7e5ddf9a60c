import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Route, Switch, useLocation } from 'wouter';
import { CenteredSpinner } from '../components/ui/spinner';
import { createQueryClient } from '../lib/api';
import { useAuth } from '../features/auth/use-auth';
import NotFoundPage from '../features/not-found/not-found-page';
import { useAppStatus } from '../features/rewards/app-status-query';
import { SignedInOverlays } from '../features/rewards/signed-in-overlays';
import { AppErrorBoundary } from './error-boundary';
import { OfflineScreen, useOfflineWithoutData } from './pwa/offline';
import { ServiceWorkerUpdates } from './pwa/register-sw';
import { BottomNav } from './shell/bottom-nav';
import { MobileFrame } from './shell/mobile-frame';
import { StatusBar } from './shell/status-bar';
import { watchSystemTheme } from './theme';
import { Toaster } from './toaster';

// Each screen is its own chunk: the login screen does not download the gallery.
// The login screen too: signed-in visits then load neither react-hook-form nor zod up front.
const LoginPage = lazy(() => import('../features/auth/login-page'));
const RegisterPage = lazy(() => import('../features/auth/register-page'));
const ForgotPasswordPage = lazy(() => import('../features/auth/forgot-password-page'));
const DashboardPage = lazy(() => import('../features/dashboard/dashboard-page'));
const GalleryPage = lazy(() => import('../features/gallery/gallery-page'));
const BillingPage = lazy(() => import('../features/billing/billing-page'));
const PricingPage = lazy(() => import('../features/pricing/pricing-page'));
const SettingsPage = lazy(() => import('../features/settings/settings-page'));
const OrganizerPage = lazy(() => import('../features/organizer/organizer-page'));
const PhotoEditorPage = lazy(() => import('../features/photo-editor/photo-editor-page'));
const CheckoutPage = lazy(() => import('../features/checkout/checkout-page'));

function SignedInApp() {
  const { data: appStatus } = useAppStatus();
  const offline = useOfflineWithoutData();
  const [location] = useLocation();
  return (
    <>
      <StatusBar active={!!appStatus?.isActive} />
      <SignedInOverlays />
      <div className="flex flex-1 flex-col">
        {offline && <OfflineScreen />}
        <AppErrorBoundary resetKey={location}>
          <Suspense fallback={<CenteredSpinner />}>
            <div className="contents" hidden={offline}>
              <Switch>
                <Route path="/" component={DashboardPage} />
                <Route path="/gallery" component={GalleryPage} />
                <Route path="/billing" component={BillingPage} />
                <Route path="/pricing" component={PricingPage} />
                <Route path="/settings" component={SettingsPage} />
                <Route path="/organizer" component={OrganizerPage} />
                <Route path="/photo-editor" component={PhotoEditorPage} />
                <Route path="/checkout" component={CheckoutPage} />
                <Route component={NotFoundPage} />
              </Switch>
            </div>
          </Suspense>
        </AppErrorBoundary>
      </div>
      <BottomNav />
    </>
  );
}

function SignedOutApp() {
  const [location] = useLocation();
  return (
    <>
      <StatusBar />
      <AppErrorBoundary resetKey={location}>
        <Suspense fallback={<CenteredSpinner />}>
          <Switch>
            <Route path="/" component={LoginPage} />
            <Route path="/login" component={LoginPage} />
            <Route path="/register" component={RegisterPage} />
            <Route path="/forgot-password" component={ForgotPasswordPage} />
            <Route path="/pricing" component={PricingPage} />
            {/* A signed-in route visited while signed out shows the login screen. */}
            <Route path="/:rest*" component={LoginOrNotFound} />
          </Switch>
        </Suspense>
      </AppErrorBoundary>
    </>
  );
}

const SIGNED_IN_PATHS = ['/gallery', '/billing', '/settings', '/organizer', '/photo-editor', '/checkout'];
function LoginOrNotFound({ params }: { params: { 'rest*'?: string } }) {
  const path = '/' + (params['rest*'] ?? '');
  return SIGNED_IN_PATHS.some((p) => path === p || path.startsWith(p + '/')) ? <LoginPage /> : <NotFoundPage />;
}

function Router() {
  const { isLoading, isAuthenticated } = useAuth();
  const offline = useOfflineWithoutData();
  // Offline and the session could not be checked: the shell with the offline screen, not the login.
  if (offline && !isAuthenticated) {
    return (
      <>
        <StatusBar />
        <OfflineScreen />
      </>
    );
  }
  if (isLoading) return <CenteredSpinner label="Checking your session" />;
  return isAuthenticated ? <SignedInApp /> : <SignedOutApp />;
}

export function App() {
  const [queryClient] = useState(createQueryClient);
  useEffect(() => watchSystemTheme(), []);
  return (
    <QueryClientProvider client={queryClient}>
      <MobileFrame>
        {/* Last resort for the shell itself (status bar, overlays); screens have their own boundary above. */}
        <AppErrorBoundary>
          <Router />
        </AppErrorBoundary>
      </MobileFrame>
      <Toaster />
      <ServiceWorkerUpdates />
    </QueryClientProvider>
  );
}
