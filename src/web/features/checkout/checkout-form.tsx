import { formatCents } from '@domain/format';
import { PaymentElement, useElements, useStripe } from '@stripe/react-stripe-js';
import { useState, type FormEvent } from 'react';
import { toast } from '../../lib/toast';
import { Button } from '../../components/ui/button';

/** Card form from the payment provider; confirmation returns to /billing?success=true. */
export function CheckoutForm({ amount }: { amount: number }) {
  const stripe = useStripe();
  const elements = useElements();
  const [processing, setProcessing] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!stripe || !elements) return;
    setProcessing(true);
    try {
      const { error } = await stripe.confirmPayment({
        elements,
        confirmParams: { return_url: `${window.location.origin}/billing?success=true` },
      });
      // Only reached on failure: success leaves the page for the return address.
      if (error) toast({ title: 'Payment Failed', description: error.message, variant: 'destructive' });
    } catch {
      toast({ title: 'Payment Error', description: 'An unexpected error occurred', variant: 'destructive' });
    } finally {
      setProcessing(false);
    }
  };

  return (
    <form onSubmit={submit} className="flex flex-col gap-4">
      <PaymentElement />
      <Button type="submit" size="lg" disabled={!stripe || !elements} pending={processing}>
        {processing ? 'Processing...' : `Pay ${formatCents(amount)}`}
      </Button>
    </form>
  );
}
