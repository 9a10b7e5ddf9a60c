import '../../lib/zod-jitless';
import { PASSWORD_MIN, registerBody, type RegisterBody } from '@contract/auth';
import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Link, useLocation } from 'wouter';
import { toast } from '../../lib/toast';
import { Button } from '../../components/ui/button';
import { TextField } from '../../components/ui/text-field';
import { apiRequest, errorMessage } from '../../lib/api';
import { browserTimeZone } from '../../lib/browser-time-zone';
import { AuthLayout } from './auth-layout';
import { userQueryOptions } from './use-auth';

export default function RegisterPage() {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const form = useForm<RegisterBody>({
    resolver: zodResolver(registerBody),
    defaultValues: { firstName: '', lastName: '', email: '', password: '' },
  });
  const register = useMutation({
    mutationFn: (body: RegisterBody) =>
      apiRequest('POST', '/api/auth/register', { ...body, timeZone: browserTimeZone() }),
    onSuccess: async () => {
      toast({ title: 'Account created!', description: 'Welcome to Eyevu.' });
      await qc.invalidateQueries({ queryKey: userQueryOptions().queryKey });
      navigate('/');
    },
    onError: (err) =>
      toast({ title: 'Error', description: errorMessage(err, 'Failed to create account'), variant: 'destructive' }),
  });
  const { errors } = form.formState;
  return (
    <AuthLayout title="Create your account" subtitle="Start saving time on every ad break">
      <form noValidate className="flex flex-col gap-4" onSubmit={form.handleSubmit((v) => register.mutate(v))}>
        <div className="grid grid-cols-2 gap-3">
          <TextField
            label="First Name"
            autoComplete="given-name"
            placeholder="First name"
            error={errors.firstName?.message}
            {...form.register('firstName')}
          />
          <TextField
            label="Last Name"
            autoComplete="family-name"
            placeholder="Last name"
            error={errors.lastName?.message}
            {...form.register('lastName')}
          />
        </div>
        <TextField
          label="Email"
          type="email"
          autoComplete="email"
          placeholder="Enter your email"
          error={errors.email?.message}
          {...form.register('email')}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          placeholder="Create a password (min 6 characters)"
          // The placeholder is cut at 320-360 px before its rule: the rule is told under the field.
          hint={`At least ${PASSWORD_MIN} characters`}
          error={errors.password?.message}
          {...form.register('password')}
        />
        <Button type="submit" size="lg" pending={register.isPending}>
          {register.isPending ? 'Creating account...' : 'Create Account'}
        </Button>
      </form>
      <p className="text-center text-sm text-muted">
        Already have an account?{' '}
        <Link href="/login" className="font-medium text-primary underline-offset-4 hover:underline">
          Sign in
        </Link>
      </p>
    </AuthLayout>
  );
}
