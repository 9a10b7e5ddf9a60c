import { useRegisterSW } from 'virtual:pwa-register/react';
import { UpdatePrompt } from './update-prompt';

const UPDATE_CHECK_MS = 60 * 60 * 1000;

/**
 * Registers the service worker (vite-plugin-pwa, 'prompt' mode) and asks before activating a new
 * version. A deployed version is found at the next navigation or by the hourly check.
 */
export function ServiceWorkerUpdates() {
  const {
    needRefresh: [needRefresh, setNeedRefresh],
    updateServiceWorker,
  } = useRegisterSW({
    onRegisteredSW(_url, registration) {
      if (registration) setInterval(() => void registration.update(), UPDATE_CHECK_MS);
    },
    onRegisterError(error) {
      console.error('Service worker registration failed', error);
    },
  });
  return (
    <UpdatePrompt
      needRefresh={needRefresh}
      onReload={() => void updateServiceWorker(true)}
      onDismiss={() => setNeedRefresh(false)}
    />
  );
}
