export { OnboardingModal } from './onboarding-modal';
export { openOnboarding, resetOnboarding, useOnboarding } from './onboarding-store';
