import '../../lib/zod-jitless';
import {
  forgotPasswordBody,
  PASSWORD_MIN,
  resetPasswordBody,
  type ForgotPasswordBody,
  type ForgotPasswordResponse,
  type ResetPasswordBody,
} from '@contract/auth';
import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link, useLocation } from 'wouter';
import { toast } from '../../lib/toast';
import { Button } from '../../components/ui/button';
import { TextField } from '../../components/ui/text-field';
import { apiRequest, errorMessage } from '../../lib/api';
import { AuthLayout } from './auth-layout';

export const DEMO_TOKEN_TOAST_MS = 10_000;
export const REDIRECT_AFTER_RESET_MS = 2_000;

export default function ForgotPasswordPage() {
  const [, navigate] = useLocation();
  const [step, setStep] = useState<'email' | 'reset'>('email');
  const emailForm = useForm<ForgotPasswordBody>({
    resolver: zodResolver(forgotPasswordBody),
    defaultValues: { email: '' },
  });
  const resetForm = useForm<ResetPasswordBody>({
    resolver: zodResolver(resetPasswordBody),
    defaultValues: { token: '', password: '' },
  });

  // The step's form replaces the one whose button was pressed, so focus would fall to the page:
  // it goes to the first field still to fill (the new password when the demo filled the token).
  const focusNext = useRef<keyof ResetPasswordBody | null>(null);
  useEffect(() => {
    if (step !== 'reset' || !focusNext.current) return;
    resetForm.setFocus(focusNext.current);
    focusNext.current = null;
  }, [step, resetForm]);
  const toResetStep = (focus: keyof ResetPasswordBody) => {
    focusNext.current = focus;
    setStep('reset');
  };

  const forgot = useMutation({
    mutationFn: async (body: ForgotPasswordBody) =>
      (await (await apiRequest('POST', '/api/auth/forgot-password', body)).json()) as ForgotPasswordResponse,
    onSuccess: (data) => {
      if (data.resetToken) {
        resetForm.setValue('token', data.resetToken);
        toResetStep('password');
        toast({ title: 'Demo mode: reset token', description: data.resetToken, duration: DEMO_TOKEN_TOAST_MS });
      } else {
        // The token comes by mail: this step is where it is entered (without it a mailed token
        // had nowhere to go, and no one could finish a reset outside the local demo).
        toResetStep('token');
        toast({ title: 'Reset email sent', description: data.message });
      }
    },
    onError: (err) =>
      toast({ title: 'Error', description: errorMessage(err, 'Something went wrong'), variant: 'destructive' }),
  });

  const reset = useMutation({
    mutationFn: (body: ResetPasswordBody) => apiRequest('POST', '/api/auth/reset-password', body),
    onSuccess: () =>
      toast({ title: 'Password reset successfully', description: 'You can now log in with your new password.' }),
    onError: (err) =>
      toast({ title: 'Error', description: errorMessage(err, 'Failed to reset password'), variant: 'destructive' }),
  });

  useEffect(() => {
    if (!reset.isSuccess) return;
    const id = setTimeout(() => navigate('/login'), REDIRECT_AFTER_RESET_MS);
    return () => clearTimeout(id);
  }, [reset.isSuccess, navigate]);

  return (
    <AuthLayout
      title="Reset your password"
      subtitle={
        step === 'email'
          ? 'Enter your email and we will send you a reset link'
          : 'Enter the reset token and a new password'
      }
    >
      {step === 'email' ? (
        <form noValidate className="flex flex-col gap-4" onSubmit={emailForm.handleSubmit((v) => forgot.mutate(v))}>
          <TextField
            label="Email"
            type="email"
            autoComplete="email"
            placeholder="Enter your email"
            error={emailForm.formState.errors.email?.message}
            {...emailForm.register('email')}
          />
          <Button type="submit" size="lg" pending={forgot.isPending}>
            {forgot.isPending ? 'Sending...' : 'Send reset link'}
          </Button>
          {/* Someone coming back from the mail (another tab, later) has a token and no need for a new one. */}
          <Button type="button" variant="ghost" onClick={() => toResetStep('token')}>
            I already have a reset token
          </Button>
        </form>
      ) : (
        <form noValidate className="flex flex-col gap-4" onSubmit={resetForm.handleSubmit((v) => reset.mutate(v))}>
          <TextField
            label="Reset Token"
            autoComplete="one-time-code"
            placeholder="Paste your reset token"
            error={resetForm.formState.errors.token?.message}
            {...resetForm.register('token')}
          />
          <TextField
            label="New Password"
            type="password"
            autoComplete="new-password"
            placeholder="Create a password (min 6 characters)"
            hint={`At least ${PASSWORD_MIN} characters`}
            error={resetForm.formState.errors.password?.message}
            {...resetForm.register('password')}
          />
          <Button type="submit" size="lg" pending={reset.isPending || reset.isSuccess}>
            {reset.isPending ? 'Resetting...' : 'Reset password'}
          </Button>
        </form>
      )}
      <p className="text-center text-sm">
        <Link href="/login" className="font-medium text-primary underline-offset-4 hover:underline">
          Back to login
        </Link>
      </p>
    </AuthLayout>
  );
}
