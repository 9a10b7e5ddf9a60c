import {
  answerTrivia,
  createTriviaGame,
  currentTriviaQuestion,
  optionLetter,
  startTrivia,
  tickTrivia,
  TRIVIA_QUESTION_COUNT,
  triviaNextDeadline,
  triviaOptionLook,
  triviaProgress,
  triviaQuestionLabel,
  type TriviaQuestion,
  type TriviaState,
  triviaTimeLeftSeconds,
} from '@domain/games/trivia';
import { useEffect, useId, useReducer, useRef } from 'react';
import { ProgressBar } from '../../components/ui/progress-bar';
import { cn } from '../../lib/cn';
import { useSettlingPresses } from '../../lib/settling-presses';
import { GameAnnouncer, GameIntro } from './game-intro';
import type { GameProps } from './memory-game';
import { useDeadline, useNow, useReportOnce } from './use-game-clock';

type Action =
  | { type: 'start'; now: number; endsBy?: number }
  | { type: 'answer'; option: number; now: number }
  | { type: 'tick'; now: number };

function reducer(state: TriviaState, action: Action): TriviaState {
  if (action.type === 'start') return startTrivia(state, action.now, action.endsBy);
  if (action.type === 'answer') return answerTrivia(state, action.option, action.now);
  return tickTrivia(state, action.now);
}

const LOOK: Record<ReturnType<typeof triviaOptionLook>, string> = {
  idle: 'border-border bg-surface hover:bg-surface-2',
  correct: 'border-success bg-success text-success-fg',
  wrong: 'border-danger bg-danger text-danger-fg',
  dimmed: 'border-border bg-surface opacity-60',
};

export interface TriviaGameProps extends GameProps {
  /** Injectable question pool (tests); defaults to the domain's pool. */
  pool?: readonly TriviaQuestion[];
}

/** Quick Trivia view; the rules live in src/domain/games/trivia.ts. */
export function TriviaGame({ seed, timeLimitSeconds = 30, endsAt, onComplete, onExpire, pool }: TriviaGameProps) {
  const [game, dispatch] = useReducer(reducer, undefined, () => createTriviaGame({ seed, timeLimitSeconds, pool }));
  useDeadline(triviaNextDeadline(game), (now) => dispatch({ type: 'tick', now }));
  useReportOnce(game.result, onComplete);
  const now = useNow(game.phase === 'question');
  const labelId = useId();
  const questionId = useId();
  // Each question brings new option buttons and the pressed one (Start, or the last answer) is gone:
  // focus goes to the first option, which reads out the question as its description. The answer's
  // result is read by the polite status below.
  const question = currentTriviaQuestion(game);
  const firstOption = useRef<HTMLButtonElement>(null);
  useEffect(() => firstOption.current?.focus(), [question]);

  // The first question replaces Start Game: a double click on Start must not answer it.
  const settle = useSettlingPresses(game.phase === 'intro');

  if (game.phase === 'intro') {
    return (
      <GameIntro
        title="Quick Trivia"
        icon="🧩"
        endsAt={endsAt}
        onExpire={onExpire}
        onStart={() => dispatch({ type: 'start', now: Date.now(), endsBy: endsAt })}
      >
        <p>Answer {TRIVIA_QUESTION_COUNT} questions about technology, photography and social media.</p>
        <p>10 points per correct answer, plus a bonus for finishing quickly.</p>
      </GameIntro>
    );
  }

  const progress = Math.round(triviaProgress(game) * 100);
  const answered = game.selectedAnswer !== null;

  return (
    <div className="flex flex-col gap-3" onClickCapture={settle}>
      <div className="flex items-center justify-between text-sm">
        <span className="font-semibold">Score: {game.score}</span>
        <span id={labelId}>{triviaQuestionLabel(game)}</span>
        <span className="tabular-nums">{triviaTimeLeftSeconds(game, now)}s left</span>
      </div>
      <ProgressBar value={progress} label="Trivia progress" />
      {question ? (
        <>
          <span className="self-start rounded-full bg-primary-soft px-2 py-0.5 text-xs font-medium">
            {question.category}
          </span>
          <h3 id={questionId} className="text-base font-semibold">
            {question.question}
          </h3>
          <ul className="flex flex-col gap-2">
            {question.options.map((option, i) => (
              <li key={option}>
                <button
                  ref={i === 0 ? firstOption : undefined}
                  type="button"
                  // Locked by the rules (one answer per question), not `disabled`: Chrome would move
                  // focus off the pressed option to the page for the 2 s before the next question.
                  aria-disabled={answered || undefined}
                  aria-label={`${optionLetter(i)}. ${option}`}
                  aria-describedby={i === 0 ? `${labelId} ${questionId}` : undefined}
                  onClick={() => dispatch({ type: 'answer', option: i, now: Date.now() })}
                  className={cn(
                    'flex min-h-11 w-full items-center gap-3 rounded-xl border px-3 py-2 text-left text-sm transition aria-disabled:cursor-default',
                    LOOK[triviaOptionLook(game, i)],
                  )}
                >
                  <span
                    className="grid size-7 shrink-0 place-items-center rounded-full bg-surface-2 font-bold text-fg"
                    aria-hidden
                  >
                    {optionLetter(i)}
                  </span>
                  <span aria-hidden>{option}</span>
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : (
        game.phase !== 'complete' && <p className="py-6 text-center text-muted">Loading...</p>
      )}
      <GameAnnouncer message={game.feedback ?? ''} />
    </div>
  );
}
