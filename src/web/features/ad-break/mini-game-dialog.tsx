import type { GameOutcome } from '@domain/games/game-outcome';
import {
  GAME_CHOICES,
  type GameData,
  gamePoints,
  gameTimeLimit,
  type PlayableGameType,
  rating,
} from '@domain/games/scoring';
import { Brain, HelpCircle, Star, Target, X } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { Button } from '../../components/ui/button';
import { Dialog, DialogClose, DialogDescription, DialogTitle } from '../../components/ui/dialog';
import { Emoji } from '../../components/ui/emoji';
import { cn } from '../../lib/cn';
import { useSettlingPresses } from '../../lib/settling-presses';
import { MemoryGame } from './memory-game';
import { ReactionGame } from './reaction-game';
import { TriviaGame } from './trivia-game';

/** What the dialog reports once per opening (the shape of the activity's gameData). */
export type MiniGameOutcome = GameData & { gameType: PlayableGameType | 'none' };

type View =
  | { kind: 'select' }
  | { kind: 'playing'; game: PlayableGameType; seed: number }
  | { kind: 'result'; game: PlayableGameType; score: number };

const ICONS = { memory: Brain, reaction: Target, trivia: HelpCircle } as const;

export const randomSeed = () => Math.floor(Math.random() * 2 ** 32);

export interface MiniGameDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  app: string;
  /** Seconds. */
  adDuration: number;
  /**
   * Called once per opening: the finished game's score, or a zero-score `completed: false`
   * outcome when the player skips ('none') or closes mid-game.
   */
  onFinish: (outcome: MiniGameOutcome) => void;
  /** Game length; defaults to min(ad duration, 45 s). */
  timeLimitSeconds?: number;
  /**
   * The ad's end (ms since epoch), when the dialog is part of an ad break: a game started later than
   * its limit before it still ends with the ad, and a game picked but not started by then counts as
   * closed without finishing (the ad break waits for a game in play).
   */
  endsAt?: number;
  /** Called when the player picks a game (the overlay waits for a game in play before it closes). */
  onGameStart?: (game: PlayableGameType) => void;
  /** Seed source for deals, question picks and targets (tests pass a fixed one). */
  nextSeed?: () => number;
}

/** The mini-game that fills an ad break: intro, the game, then its score. */
export function MiniGameDialog({
  open,
  onOpenChange,
  app,
  adDuration,
  onFinish,
  timeLimitSeconds,
  endsAt,
  onGameStart,
  nextSeed = randomSeed,
}: MiniGameDialogProps) {
  const [view, setView] = useState<View>({ kind: 'select' });
  // Each opening starts at the selection view.
  const [wasOpen, setWasOpen] = useState(open);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) setView({ kind: 'select' });
  }

  const limit = timeLimitSeconds ?? gameTimeLimit(adDuration);
  // Each view replaces the control pressed in the one before (Play Game, a game's card, the last
  // move of a game): the second click of a double click must not start or end what replaced it.
  const settle = useSettlingPresses(open && view.kind + (view.kind === 'select' ? '' : view.game));

  const close = () => {
    if (view.kind === 'select') onFinish({ gameType: 'none', score: 0, completed: false });
    else if (view.kind === 'playing') onFinish({ gameType: view.game, score: 0, completed: false });
    onOpenChange(false);
  };

  const complete = (game: PlayableGameType) => (outcome: GameOutcome) => {
    setView({ kind: 'result', game, score: outcome.score });
    onFinish({ gameType: game, score: outcome.score, completed: true });
  };
  const gameProps = (game: PlayableGameType) => ({
    seed: view.kind === 'playing' ? view.seed : 0,
    timeLimitSeconds: limit,
    endsAt,
    onComplete: complete(game),
    onExpire: close,
  });

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => (next ? onOpenChange(true) : close())}
      layer="game"
      onPointerDownOutside={(e) => e.preventDefault()}
    >
      <header className="flex items-start gap-2">
        <div className="min-w-0 flex-1">
          <DialogTitle className="text-lg font-bold">Ad Break Mini-Game</DialogTitle>
          <DialogDescription className="text-sm text-muted">
            {app} ad • {adDuration}s
          </DialogDescription>
        </div>
        <DialogClose asChild>
          <Button variant="ghost" size="icon" aria-label="Close mini-game">
            <X className="size-5" aria-hidden />
          </Button>
        </DialogClose>
      </header>

      <div className="contents" onClickCapture={settle}>
        {view.kind === 'select' && (
          <GameSelection
            onPick={(game) => {
              setView({ kind: 'playing', game, seed: nextSeed() });
              onGameStart?.(game);
            }}
            onSkip={close}
          />
        )}
        {view.kind === 'playing' && view.game === 'memory' && <MemoryGame {...gameProps('memory')} />}
        {view.kind === 'playing' && view.game === 'reaction' && <ReactionGame {...gameProps('reaction')} />}
        {view.kind === 'playing' && view.game === 'trivia' && <TriviaGame {...gameProps('trivia')} />}
        {view.kind === 'result' && <GameResult score={view.score} onContinue={() => onOpenChange(false)} />}
      </div>
    </Dialog>
  );
}

function GameSelection({ onPick, onSkip }: { onPick: (game: PlayableGameType) => void; onSkip: () => void }) {
  return (
    <div className="flex flex-col gap-3">
      <div className="text-center">
        <h3 className="text-base font-semibold">Choose Your Game</h3>
        <p className="text-sm text-muted">Play a quick game while the ad runs!</p>
      </div>
      <ul className="flex flex-col gap-2">
        {GAME_CHOICES.map((choice) => {
          const Icon = ICONS[choice.type];
          return (
            <li key={choice.type}>
              <button
                type="button"
                onClick={() => onPick(choice.type)}
                className="flex min-h-14 w-full items-center gap-3 rounded-xl border border-border bg-surface p-3 text-left transition hover:bg-surface-2 focus-visible:outline-2 focus-visible:outline-primary"
              >
                <span className="grid size-10 shrink-0 place-items-center rounded-lg bg-primary-soft text-primary">
                  <Icon className="size-5" aria-hidden />
                </span>
                <span className="flex flex-col">
                  <span className="font-semibold">{choice.name}</span>
                  <span className="text-sm text-muted">{choice.description}</span>
                </span>
              </button>
            </li>
          );
        })}
      </ul>
      <Button variant="outline" onClick={onSkip}>
        Skip Game
      </Button>
    </div>
  );
}

function GameResult({ score, onContinue }: { score: number; onContinue: () => void }) {
  const points = gamePoints(score);
  const { label, stars } = rating(score);
  const summaryId = useId();
  // The game that had focus is gone: Continue takes it and reads out the result.
  const next = useRef<HTMLButtonElement>(null);
  useEffect(() => next.current?.focus(), []);
  return (
    <div className="flex flex-col items-center gap-3 text-center">
      <span className="text-5xl" aria-hidden>
        <Emoji emoji="🏆" />
      </span>
      <div id={summaryId} className="contents">
        <h3 className="text-xl font-bold">Game Complete!</h3>
        <p className="text-3xl font-bold text-primary">
          {score} <span className="text-base font-medium text-muted">points</span>
        </p>
        <div className="flex flex-col items-center gap-1">
          <span className="flex gap-1" role="img" aria-label={`${stars} of 3 stars`}>
            {[1, 2, 3].map((n) => (
              <Star
                key={n}
                aria-hidden
                className={cn('size-6', n <= stars ? 'fill-warning text-warning' : 'text-border')}
              />
            ))}
          </span>
          <span className="font-semibold">{label}</span>
        </div>
        <p className="text-sm">You earned {points} Eyevu points!</p>
      </div>
      <Button ref={next} size="lg" className="w-full" onClick={onContinue} aria-describedby={summaryId}>
        Continue Browsing
      </Button>
    </div>
  );
}
