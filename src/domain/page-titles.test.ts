import { isSignedInOnlyPath, pageTitle } from './page-titles';

describe('pageTitle', () => {
  it('names each signed-in screen', () => {
    expect(pageTitle('/', true)).toBe('Dashboard - Eyevu');
    expect(pageTitle('/gallery', true)).toBe('Photo Gallery - Eyevu');
    expect(pageTitle('/billing', true)).toBe('Billing & Subscription - Eyevu');
    expect(pageTitle('/pricing', true)).toBe('Pricing - Eyevu');
    expect(pageTitle('/settings', true)).toBe('Settings - Eyevu');
    expect(pageTitle('/organizer', true)).toBe('Photo Organizer - Eyevu');
    expect(pageTitle('/photo-editor', true)).toBe('Photo Editor - Eyevu');
    expect(pageTitle('/checkout', true)).toBe('Checkout - Eyevu');
    expect(pageTitle('/nowhere', true)).toBe('Page not found - Eyevu');
    expect(pageTitle('/gallery/123', true)).toBe('Page not found - Eyevu');
  });

  it('names each signed-out screen, and the login where a signed-in screen was asked for', () => {
    expect(pageTitle('/', false)).toBe('Sign In - Eyevu');
    expect(pageTitle('/login', false)).toBe('Sign In - Eyevu');
    expect(pageTitle('/register', false)).toBe('Create Account - Eyevu');
    expect(pageTitle('/forgot-password', false)).toBe('Forgot Password - Eyevu');
    expect(pageTitle('/pricing', false)).toBe('Pricing - Eyevu');
    expect(pageTitle('/gallery', false)).toBe('Sign In - Eyevu');
    expect(pageTitle('/checkout', false)).toBe('Sign In - Eyevu');
    expect(pageTitle('/nowhere', false)).toBe('Page not found - Eyevu');
  });

  it('matches paths as the router does: any case, one trailing slash', () => {
    expect(pageTitle('/Gallery/', true)).toBe('Photo Gallery - Eyevu');
    expect(pageTitle('/REGISTER', false)).toBe('Create Account - Eyevu');
    expect(isSignedInOnlyPath('/Gallery/7')).toBe(true);
    expect(isSignedInOnlyPath('/galleryx')).toBe(false);
  });
});
