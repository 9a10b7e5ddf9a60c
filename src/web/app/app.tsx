import { isSignedInOnlyPath, pageTitle } from '@domain/page-titles';
import { QueryClientProvider, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useDeferredValue, useEffect, useState } from 'react';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { CenteredSpinner } from '../components/ui/spinner';
import { Toaster } from '../components/ui/toaster';
import { createQueryClient } from '../lib/api';
import { WhenIdle } from '../lib/when-idle';
// Screens come from their features' front doors as lazy components: each is its own chunk, so the
// login screen does not download the gallery.
import {
  ForgotPasswordPage,
  forgetAnswersOnAccountChange,
  LoginPage,
  RegisterPage,
  useAuth,
  userQueryOptions,
} from '../features/auth';
import { BillingPage } from '../features/billing';
import { CheckoutPage } from '../features/checkout';
import { DashboardPage } from '../features/dashboard';
import { NotFoundPage } from '../features/not-found';
import { OrganizerPage } from '../features/organizer';
import { PhotoEditorPage } from '../features/photo-editor';
import { PricingPage } from '../features/pricing';
import { SignedInOverlays, useAppActive } from '../features/rewards';
import { SettingsPage } from '../features/settings';
import { AppErrorBoundary } from './error-boundary';
import { FirstPaint } from './first-paint';
import { OfflineScreen, useOfflineWithoutData } from './pwa/offline';
import { useDocumentTitle, useRouteFocus } from './route-focus';
import { BottomNav } from './shell/bottom-nav';
import { MobileFrame } from './shell/mobile-frame';
import { StatusBar } from './shell/status-bar';
import { watchSystemTheme } from './theme';

// The gallery's front door also carries the photo viewer that the ad overlay uses, so the router
// opens that door lazily too: the viewer stays out of the first download.
const GalleryPage = lazy(() => import('../features/gallery').then((m) => m.loadGalleryPage()));
// The service worker's registration and update prompt (workbox-window) show nothing on the first
// screen: loaded and mounted once the browser is idle, they stay out of the load's first tasks.
const ServiceWorkerUpdates = lazy(() => import('./pwa/register-sw').then((m) => ({ default: m.ServiceWorkerUpdates })));

/**
 * The status bar is the only part of the shell that shows the app status, so only it reads the
 * query: read in SignedInApp, each answer re-rendered the whole screen in one blocking task (query
 * updates cannot be time-sliced), the first load's answer included.
 */
function SignedInStatusBar() {
  return <StatusBar active={useAppActive()} />;
}

const SIGNED_OUT_PATHS = ['/login', '/register', '/forgot-password'];

/**
 * A signed-out screen's path while the session is still in the cache: home. A sign-out empties
 * the session's answer and then moves to /login, and the location's change renders this app at
 * once while the answer's reaches it a task later (the query cache batches its notifications), so
 * this reads the cache itself: a redirect on the render in between sent every sign-out home.
 */
function HomeIfStillSignedIn() {
  const qc = useQueryClient();
  return qc.getQueryData(userQueryOptions().queryKey)?.user ? <Redirect to="/" replace /> : null;
}

export function SignedInApp() {
  const offline = useOfflineWithoutData();
  const [location] = useLocation();
  useDocumentTitle(pageTitle(location, true));
  return (
    <>
      <SignedInStatusBar />
      <SignedInOverlays />
      <div className="flex flex-1 flex-col">
        {offline && <OfflineScreen />}
        <AppErrorBoundary resetKey={location}>
          <Suspense fallback={<FirstPaint fallback={<CenteredSpinner />} />}>
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
                {/* The signed-out screens, reached signed in (Back after signing in, a bookmark, a
                    sign-in in another tab while this one showed the login): home, not 'Page not found'. */}
                {SIGNED_OUT_PATHS.map((path) => (
                  <Route key={path} path={path} component={HomeIfStillSignedIn} />
                ))}
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

export function SignedOutApp() {
  const [location] = useLocation();
  useDocumentTitle(pageTitle(location, false));
  return (
    <>
      <StatusBar />
      <AppErrorBoundary resetKey={location}>
        <Suspense fallback={<FirstPaint fallback={<CenteredSpinner />} />}>
          <Switch>
            <Route path="/" component={LoginPage} />
            <Route path="/login" component={LoginPage} />
            <Route path="/register" component={RegisterPage} />
            <Route path="/forgot-password" component={ForgotPasswordPage} />
            <Route path="/pricing" component={PricingPage} />
            {/* A signed-in route visited while signed out shows the login screen. Without a
                path, so that a path of several segments ('/gallery/7') is matched too. */}
            <Route component={LoginOrNotFound} />
          </Switch>
        </Suspense>
      </AppErrorBoundary>
    </>
  );
}

function LoginOrNotFound() {
  const [location] = useLocation();
  return isSignedInOnlyPath(location) ? <LoginPage /> : <NotFoundPage />;
}

export function Router() {
  const { isLoading, isAuthenticated } = useAuth();
  // Above the signed-in and signed-out apps: a sign-in's move home is a move like any other, also
  // on '/', where the login gives way to the dashboard without a change of address.
  useRouteFocus(isLoading ? null : isAuthenticated);
  // The session check's answer mounts the whole app (bar, overlays, the screen). Its update comes
  // through useSyncExternalStore, which React renders in one blocking task; deferred, the answer
  // first renders the same first paint at once, and the app mounts in a render that yields to the
  // browser every few milliseconds. Only the first answer waits: later sign-ins and sign-outs
  // never pass through loading again.
  const checked = useDeferredValue(!isLoading);
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
  if (isLoading || !checked) return <FirstPaint withBar fallback={<CenteredSpinner label="Checking your session" />} />;
  return isAuthenticated ? <SignedInApp /> : <SignedOutApp />;
}

export function App() {
  const [queryClient] = useState(createQueryClient);
  useEffect(() => watchSystemTheme(), []);
  useEffect(() => forgetAnswersOnAccountChange(queryClient), [queryClient]);
  return (
    <QueryClientProvider client={queryClient}>
      <MobileFrame>
        {/* Last resort for the shell itself (status bar, overlays); screens have their own boundary above. */}
        <AppErrorBoundary>
          <Router />
        </AppErrorBoundary>
      </MobileFrame>
      <Toaster />
      <WhenIdle>
        <Suspense fallback={null}>
          <ServiceWorkerUpdates />
        </Suspense>
      </WhenIdle>
    </QueryClientProvider>
  );
}
