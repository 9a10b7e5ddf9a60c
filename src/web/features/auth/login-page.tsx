import '../../lib/zod-jitless';
import { loginBody, type LoginBody } from '@contract/auth';
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

export default function LoginPage() {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const form = useForm<LoginBody>({ resolver: zodResolver(loginBody), defaultValues: { email: '', password: '' } });
  const login = useMutation({
    mutationFn: (body: LoginBody) => apiRequest('POST', '/api/auth/login', { ...body, timeZone: browserTimeZone() }),
    onSuccess: async () => {
      toast({ title: 'Welcome to Eyevu!', description: "You've been logged in successfully." });
      await qc.invalidateQueries({ queryKey: userQueryOptions().queryKey });
      navigate('/');
    },
    onError: (err) =>
      toast({ title: 'Error', description: errorMessage(err, 'Invalid email or password'), variant: 'destructive' }),
  });
  const { errors } = form.formState;
  return (
    <AuthLayout title="Welcome to Eyevu" subtitle="Sign in to browse your photos instead of watching ads">
      <form noValidate className="flex flex-col gap-4" onSubmit={form.handleSubmit((v) => login.mutate(v))}>
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
          autoComplete="current-password"
          placeholder="Enter your password"
          error={errors.password?.message}
          {...form.register('password')}
        />
        <Button type="submit" size="lg" pending={login.isPending}>
          {login.isPending ? 'Signing in...' : 'Sign In'}
        </Button>
      </form>
      <div className="flex flex-col items-center gap-2 text-sm">
        <Link href="/forgot-password" className="font-medium text-primary underline-offset-4 hover:underline">
          Forgot your password?
        </Link>
        <p className="text-muted">
          Don&apos;t have an account?{' '}
          <Link href="/register" className="font-medium text-primary underline-offset-4 hover:underline">
            Sign up
          </Link>
        </p>
      </div>
    </AuthLayout>
  );
}
