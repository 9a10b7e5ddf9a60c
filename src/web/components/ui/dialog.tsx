import * as RadixDialog from '@radix-ui/react-dialog';
import type { ComponentPropsWithoutRef, ReactNode } from 'react';
import { cn } from '../../lib/cn';
import { useReturnFocus } from '../../lib/use-return-focus';

export const DialogTitle = RadixDialog.Title;
export const DialogDescription = RadixDialog.Description;
export const DialogClose = RadixDialog.Close;

/** Rungs of the stacking scale in styles.css that a dialog may open on. */
const LAYERS = { overlay: 'z-overlay', game: 'z-game', dialog: 'z-dialog', guide: 'z-guide' } as const;

const LOOKS = {
  card: {
    backdrop: 'bg-black/60',
    content:
      'top-1/2 left-1/2 flex max-h-[92vh] w-[calc(100%-1.5rem)] max-w-[400px] -translate-x-1/2 -translate-y-1/2 flex-col gap-4 overflow-y-auto rounded-2xl bg-surface p-5 text-fg shadow-xl',
  },
  // Fills the phone-width column, as the photo viewer does.
  screen: {
    backdrop: 'bg-black/90',
    content: 'inset-0 mx-auto flex w-full max-w-[430px] flex-col bg-black text-white outline-none',
  },
} as const;

type ContentProps = Omit<ComponentPropsWithoutRef<typeof RadixDialog.Content>, 'className'>;

export interface DialogProps extends ContentProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  layer?: keyof typeof LAYERS;
  look?: keyof typeof LOOKS;
  /** Lets a test click the backdrop. */
  backdropTestId?: string;
  children: ReactNode;
}

/**
 * The one modal dialog: a backdrop and a panel on the same rung of the stacking scale (the panel
 * paints over its backdrop because it comes later). Focus returns to whatever opened it, since our
 * dialogs are controlled and have no Radix trigger to return to, unless `onCloseAutoFocus` prevents it.
 */
export function Dialog({
  open,
  onOpenChange,
  layer = 'dialog',
  look = 'card',
  backdropTestId,
  children,
  onCloseAutoFocus,
  ...content
}: DialogProps) {
  const returnFocus = useReturnFocus(open);
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay
          data-testid={backdropTestId}
          className={cn('fixed inset-0', LAYERS[layer], LOOKS[look].backdrop)}
        />
        <RadixDialog.Content
          {...content}
          onCloseAutoFocus={(event) => {
            // A caller may send focus elsewhere (preventDefault) when the opener is now hidden.
            onCloseAutoFocus?.(event);
            if (!event.defaultPrevented) returnFocus(event);
          }}
          className={cn('fixed', LAYERS[layer], LOOKS[look].content)}
        >
          {children}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
