/**
 * Quick Trivia: 8 random questions from the spec's pool of 10, 10 points per correct
 * answer, plus a time bonus. See ./README.md for the deadline/tick model.
 *
 * Timing decisions:
 * - One clock for the whole game (the 'time left' the screen shows), started
 *   at Start and running through the 2 s feedback pauses, so the game never
 *   outlasts the ad that hosts it. When it reaches 0 the game completes.
 * - The time bonus is awarded ONCE, for the time left when the last question
 *   is answered: round(timeLeft / limit x 10) if more than half is left, else 0.
 *   It is added to the score at completion. Because 7 feedback pauses (14 s)
 *   always pass first, a 30 s game can earn at most 5 and a 45 s game at most 7.
 */
import { mulberry32, pickRandom } from '../random';
import { type GameOutcome, limitWithin } from './game-outcome';

export type TriviaCategory = 'Technology' | 'Photography' | 'Social Media';

export interface TriviaQuestion {
  question: string;
  options: readonly [string, string, string, string];
  /** Index into options. */
  correctAnswer: number;
  category: TriviaCategory;
}

export const TRIVIA_QUESTIONS: readonly TriviaQuestion[] = [
  {
    question: 'What does "JPEG" stand for?',
    options: [
      'Joint Photographic Experts Group',
      'Just Picture Encoding Graphics',
      'Java Photo Exchange Gateway',
      'Joined Pixel Element Grid',
    ],
    correctAnswer: 0,
    category: 'Photography',
  },
  {
    question: 'In photography, what does a lower f-number (such as f/1.8) mean?',
    options: ['A smaller aperture', 'A wider aperture', 'A faster shutter', 'A lower ISO'],
    correctAnswer: 1,
    category: 'Photography',
  },
  {
    question: 'What is the "golden hour" in photography?',
    options: [
      'Noon on a sunny day',
      'The hour after midnight',
      'Shortly after sunrise or before sunset',
      'Any hour with a golden filter',
    ],
    correctAnswer: 2,
    category: 'Photography',
  },
  {
    question: 'What does "CPU" stand for?',
    options: ['Central Processing Unit', 'Computer Power Unit', 'Core Program Utility', 'Central Peripheral Uplink'],
    correctAnswer: 0,
    category: 'Technology',
  },
  {
    question: 'Which company created the Android operating system before Google bought it?',
    options: ['Android Inc.', 'Nokia', 'BlackBerry', 'Palm'],
    correctAnswer: 0,
    category: 'Technology',
  },
  {
    question: 'What does "Wi-Fi" use to carry data?',
    options: ['Copper cables', 'Radio waves', 'Infrared light', 'Sound waves'],
    correctAnswer: 1,
    category: 'Technology',
  },
  {
    question: 'Which app is known for photo posts and Stories with a camera-shaped icon?',
    options: ['Twitter', 'LinkedIn', 'Instagram', 'Reddit'],
    correctAnswer: 2,
    category: 'Social Media',
  },
  {
    question: 'What is a "hashtag" used for on social media?',
    options: ['Hiding a post', 'Grouping posts by topic', 'Blocking a user', 'Deleting comments'],
    correctAnswer: 1,
    category: 'Social Media',
  },
  {
    question: 'Which platform is best known for short vertical videos set to music?',
    options: ['TikTok', 'Pinterest', 'Tumblr', 'Flickr'],
    correctAnswer: 0,
    category: 'Social Media',
  },
  {
    question: 'On YouTube, what does subscribing to a channel do?',
    options: ['Pays the creator monthly', 'Downloads every video', 'Follows it for new uploads', 'Removes its ads'],
    correctAnswer: 2,
    category: 'Social Media',
  },
];

export const TRIVIA_QUESTION_COUNT = 8;
export const TRIVIA_POINTS_PER_CORRECT = 10;
export const TRIVIA_NEXT_QUESTION_DELAY_MS = 2000;
export const TRIVIA_MAX_TIME_BONUS = 10;
/** The bonus is 0 or at least 5: it only pays when more than half the time is left, and round(0.5+ x 10) = 5. */
export const TRIVIA_MIN_TIME_BONUS = 5;
/** 8 correct + the largest bonus the formula allows; the delays keep real games below it (see trivia max bonus). */
export const TRIVIA_MAX_SCORE = TRIVIA_QUESTION_COUNT * TRIVIA_POINTS_PER_CORRECT + TRIVIA_MAX_TIME_BONUS;

/** round(timeLeft / limit x 10) when MORE than half the time is left, else 0. */
export function triviaTimeBonus(timeLeftMs: number, timeLimitMs: number): number {
  if (timeLimitMs <= 0) return 0;
  const fraction = Math.min(1, Math.max(0, timeLeftMs) / timeLimitMs);
  return fraction > 0.5 ? Math.round(fraction * TRIVIA_MAX_TIME_BONUS) : 0;
}

/** Largest bonus a real game can earn: the last answer comes after (questions - 1) feedback pauses at best. */
export function maxTriviaTimeBonus(timeLimitMs: number, questionCount = TRIVIA_QUESTION_COUNT): number {
  const minElapsed = Math.max(0, questionCount - 1) * TRIVIA_NEXT_QUESTION_DELAY_MS;
  return triviaTimeBonus(timeLimitMs - minElapsed, timeLimitMs);
}

export type TriviaPhase = 'intro' | 'question' | 'complete';

export interface TriviaState {
  phase: TriviaPhase;
  questions: readonly TriviaQuestion[];
  /** Index of the current question in `questions`. */
  index: number;
  /** The chosen option for the current question; non-null means answered and locked. */
  selectedAnswer: number | null;
  /** 'Correct! +10 points' or 'Incorrect. The answer was X.' once answered. */
  feedback: string | null;
  correctCount: number;
  /** 10 per correct answer so far (the bonus is added at completion). */
  score: number;
  timeBonus: number;
  timeLimitMs: number;
  startedAt: number | null;
  /** When the next question (or completion after the last) is due. */
  advanceAt: number | null;
  completedAt: number | null;
  result: GameOutcome | null;
}

export interface TriviaOptions {
  seed: number;
  /** Usually gameTimeLimit(adDuration) from scoring.ts. */
  timeLimitSeconds: number;
  /** Defaults to TRIVIA_QUESTIONS; injectable for tests and future content. */
  pool?: readonly TriviaQuestion[];
}

export function createTriviaGame(options: TriviaOptions): TriviaState {
  const pool = options.pool ?? TRIVIA_QUESTIONS;
  return {
    phase: 'intro',
    questions: pickRandom(pool, TRIVIA_QUESTION_COUNT, mulberry32(options.seed)),
    index: 0,
    selectedAnswer: null,
    feedback: null,
    correctCount: 0,
    score: 0,
    timeBonus: 0,
    timeLimitMs: Math.max(0, options.timeLimitSeconds) * 1000,
    startedAt: null,
    advanceAt: null,
    completedAt: null,
    result: null,
  };
}

function complete(state: TriviaState, at: number, timedOut: boolean): TriviaState {
  return {
    ...state,
    phase: 'complete',
    advanceAt: null,
    completedAt: at,
    result: { score: state.score + state.timeBonus, timedOut },
  };
}

/**
 * Starts the clock on question 1; with no questions the game completes at once. `endsBy` (ms since
 * epoch, the hosting ad's end) cuts the time limit to end by then.
 */
export function startTrivia(state: TriviaState, now: number, endsBy?: number): TriviaState {
  if (state.phase !== 'intro') return state;
  const timeLimitMs = limitWithin(state.timeLimitMs, now, endsBy) ?? state.timeLimitMs;
  const started: TriviaState = { ...state, phase: 'question', startedAt: now, timeLimitMs };
  return state.questions.length === 0 ? complete(started, now, false) : started;
}

function endsAt(state: TriviaState): number {
  return (state.startedAt ?? 0) + state.timeLimitMs;
}

export function triviaNextDeadline(state: TriviaState): number | null {
  if (state.phase !== 'question') return null;
  return state.advanceAt === null ? endsAt(state) : Math.min(state.advanceAt, endsAt(state));
}

/** Applies due events: the next question 2 s after an answer, and the time limit. */
export function tickTrivia(state: TriviaState, now: number): TriviaState {
  let s = state;
  for (;;) {
    if (s.phase !== 'question') return s;
    const end = endsAt(s);
    // On a tie the advance goes first, so answering the last question just in time still finishes it.
    if (s.advanceAt !== null && s.advanceAt <= now && s.advanceAt <= end) {
      if (s.index + 1 >= s.questions.length) return complete(s, s.advanceAt, false);
      s = { ...s, index: s.index + 1, selectedAnswer: null, feedback: null, advanceAt: null };
      continue;
    }
    if (end <= now) return complete(s, end, true);
    return s;
  }
}

/** Answers the current question once; later answers to it are ignored. */
export function answerTrivia(state: TriviaState, optionIndex: number, now: number): TriviaState {
  const s = tickTrivia(state, now);
  const question = currentTriviaQuestion(s);
  if (s.phase !== 'question' || !question || s.selectedAnswer !== null) return s;
  if (!Number.isInteger(optionIndex) || optionIndex < 0 || optionIndex >= question.options.length) return s;

  const correct = optionIndex === question.correctAnswer;
  const isLast = s.index + 1 >= s.questions.length;
  return {
    ...s,
    selectedAnswer: optionIndex,
    feedback: correct
      ? `Correct! +${TRIVIA_POINTS_PER_CORRECT} points`
      : `Incorrect. The answer was ${question.options[question.correctAnswer]}.`,
    correctCount: s.correctCount + (correct ? 1 : 0),
    score: s.score + (correct ? TRIVIA_POINTS_PER_CORRECT : 0),
    timeBonus: isLast ? triviaTimeBonus(endsAt(s) - now, s.timeLimitMs) : 0,
    advanceAt: now + TRIVIA_NEXT_QUESTION_DELAY_MS,
  };
}

/** The question on screen, or null (the view shows 'Loading...'). */
export function currentTriviaQuestion(state: TriviaState): TriviaQuestion | null {
  return state.phase === 'question' ? (state.questions[state.index] ?? null) : null;
}

/** Whole seconds left on the game clock (rounded up, so '1' shows until it truly ends). */
export function triviaTimeLeftSeconds(state: TriviaState, now: number): number {
  if (state.startedAt === null) return Math.ceil(state.timeLimitMs / 1000);
  const at = state.completedAt ?? now;
  return Math.ceil(Math.max(0, endsAt(state) - at) / 1000);
}

/** 'Question N/8' */
export function triviaQuestionLabel(state: TriviaState): string {
  return `Question ${Math.min(state.index + 1, state.questions.length)}/${state.questions.length}`;
}

/** Progress bar fraction 0..1: questions answered out of the total. */
export function triviaProgress(state: TriviaState): number {
  if (state.questions.length === 0) return 1;
  const answered =
    state.phase === 'complete' ? state.questions.length : state.index + (state.selectedAnswer === null ? 0 : 1);
  return answered / state.questions.length;
}

/** 'A', 'B', 'C', ... for option labels. */
export function optionLetter(index: number): string {
  return String.fromCharCode(65 + index);
}

/** How to colour an option: correct turns green once answered, a wrong choice red. */
export type TriviaOptionLook = 'idle' | 'correct' | 'wrong' | 'dimmed';

export function triviaOptionLook(state: TriviaState, optionIndex: number): TriviaOptionLook {
  const question = currentTriviaQuestion(state);
  if (!question || state.selectedAnswer === null) return 'idle';
  if (optionIndex === question.correctAnswer) return 'correct';
  return optionIndex === state.selectedAnswer ? 'wrong' : 'dimmed';
}
