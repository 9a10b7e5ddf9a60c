import {
  ACHIEVEMENT_UNLOCKED_MESSAGE,
  ACHIEVEMENTS,
  adCompletionPoints,
  APP_ACTIVATED_MESSAGE,
  calendarDay,
  REWARD_POINTS,
  isRewardType,
  newlyUnlockedAchievements,
  nextLoginStreak,
  PHOTO_UPLOADED_MESSAGE,
  photosUploadedMessage,
  uploadRewardMessage,
  pointsEarnedMessage,
  READY_TO_SAVE_TIME_MESSAGE,
  REWARD_TYPES,
  skipReward,
  skipRewardMessage,
  STREAK_BONUS_MESSAGE,
  streakBonus,
  streakBonusDaysMessage,
  uploadReward,
  WELCOME_BACK_MESSAGE,
} from './rewards';

describe('reward points', () => {
  it('has the fixed-amount rewards and the reward types', () => {
    expect(REWARD_TYPES).toEqual(['points', 'streak', 'achievement', 'upload', 'login', 'activation']);
    expect(REWARD_POINTS).toEqual({ login: 10, activation: 15, upload: 5 });
    expect(isRewardType('login')).toBe(true);
    expect(isRewardType('bogus')).toBe(false);
  });

  it('upload and streak bonuses are 5 per unit', () => {
    expect(uploadReward(3)).toBe(15);
    expect(streakBonus(7)).toBe(35);
    expect(uploadReward(-2)).toBe(0);
    expect(streakBonus(Number.NaN)).toBe(0);
  });

  it('ad completion rounds down, skip rounds up', () => {
    expect(adCompletionPoints(15)).toBe(1);
    expect(adCompletionPoints(30)).toBe(3);
    expect(skipReward(15)).toBe(2);
    expect(skipReward(20)).toBe(2);
    expect(skipReward(30)).toBe(3);
    expect(skipReward(0)).toBe(0);
    expect(skipReward(-10)).toBe(0);
  });

  it('formats the skip message', () => {
    expect(skipRewardMessage(2)).toBe('Ad skipped! +2 pts');
  });
});

describe('achievements', () => {
  const none = { photosUploaded: 0, adsSkipped: 0, currentStreak: 0, totalPoints: 0 };

  it('has the catalogue from the spec', () => {
    expect(ACHIEVEMENTS.map((a) => [a.id, a.name, a.threshold, a.points])).toEqual([
      ['first_steps', 'First Steps', 1, 25],
      ['photo_collector', 'Photo Collector', 10, 50],
      ['ad_skipper', 'Ad Skipper', 5, 30],
      ['week_warrior', 'Week Warrior', 7, 100],
      ['point_master', 'Point Master', 500, 75],
    ]);
  });

  it('unlocks at the threshold, not below', () => {
    expect(newlyUnlockedAchievements(none, [])).toEqual([]);
    expect(newlyUnlockedAchievements({ ...none, photosUploaded: 1 }, []).map((a) => a.id)).toEqual(['first_steps']);
    expect(newlyUnlockedAchievements({ ...none, adsSkipped: 4 }, [])).toEqual([]);
    expect(newlyUnlockedAchievements({ ...none, adsSkipped: 5 }, []).map((a) => a.id)).toEqual(['ad_skipper']);
    expect(newlyUnlockedAchievements({ ...none, currentStreak: 7 }, []).map((a) => a.id)).toEqual(['week_warrior']);
    expect(newlyUnlockedAchievements({ ...none, totalPoints: 499 }, [])).toEqual([]);
    expect(newlyUnlockedAchievements({ ...none, totalPoints: 500 }, []).map((a) => a.id)).toEqual(['point_master']);
  });

  it('skips already unlocked ones and can unlock several at once', () => {
    const progress = { photosUploaded: 10, adsSkipped: 5, currentStreak: 1, totalPoints: 0 };
    expect(newlyUnlockedAchievements(progress, []).map((a) => a.id)).toEqual([
      'first_steps',
      'photo_collector',
      'ad_skipper',
    ]);
    expect(newlyUnlockedAchievements(progress, ['first_steps', 'ad_skipper']).map((a) => a.id)).toEqual([
      'photo_collector',
    ]);
  });
});

describe('nextLoginStreak', () => {
  it("starts at 1 on the first login ever, greeted 'Welcome!' (not 'Welcome back!')", () => {
    expect(nextLoginStreak({ lastLoginDay: null, currentStreak: 0 }, '2024-05-10')).toEqual({
      currentStreak: 1,
      isNewDay: true,
      message: 'Welcome!',
    });
  });

  it('restarts at 1 after a gap, a return without a streak message', () => {
    expect(nextLoginStreak({ lastLoginDay: '2024-05-01', currentStreak: 3 }, '2024-05-10')).toEqual({
      currentStreak: 1,
      isNewDay: true,
    });
  });

  it('keeps the streak on the same day', () => {
    expect(nextLoginStreak({ lastLoginDay: '2024-05-10', currentStreak: 4 }, '2024-05-10')).toEqual({
      currentStreak: 4,
      isNewDay: false,
    });
  });

  it('adds one on the next day with a welcome message', () => {
    expect(nextLoginStreak({ lastLoginDay: '2024-05-09', currentStreak: 4 }, '2024-05-10')).toEqual({
      currentStreak: 5,
      isNewDay: true,
      message: 'Welcome back! 5 day streak!',
    });
    expect(nextLoginStreak({ lastLoginDay: '2024-12-31', currentStreak: 1 }, '2025-01-01').message).toBe(
      'Welcome back! 2 day streak!',
    );
  });

  it('resets to 1 after a gap, with no message', () => {
    expect(nextLoginStreak({ lastLoginDay: '2024-05-07', currentStreak: 9 }, '2024-05-10')).toEqual({
      currentStreak: 1,
      isNewDay: true,
    });
  });

  it('does not give a new day when the clock moved back', () => {
    expect(nextLoginStreak({ lastLoginDay: '2024-05-11', currentStreak: 3 }, '2024-05-10')).toEqual({
      currentStreak: 3,
      isNewDay: false,
    });
  });

  it('rejects a malformed today', () => {
    expect(() => nextLoginStreak({ lastLoginDay: null, currentStreak: 0 }, '10/05/2024')).toThrow(RangeError);
  });

  it('works with calendarDay in the user’s zone', () => {
    // 23:30 UTC on the 9th is the 10th in UTC+2: consecutive with a login on the 9th.
    const today = calendarDay(new Date('2024-05-09T23:30:00Z'), 120);
    expect(nextLoginStreak({ lastLoginDay: '2024-05-09', currentStreak: 1 }, today).currentStreak).toBe(2);
  });
});

describe('notification messages', () => {
  it('match the spec', () => {
    expect(pointsEarnedMessage(25)).toBe('+25 points earned!');
    expect(STREAK_BONUS_MESSAGE).toBe('Streak bonus!');
    expect(ACHIEVEMENT_UNLOCKED_MESSAGE).toBe('Achievement unlocked!');
    expect(PHOTO_UPLOADED_MESSAGE).toBe('Photo uploaded successfully!');
    expect(WELCOME_BACK_MESSAGE).toBe('Welcome back!');
    expect(APP_ACTIVATED_MESSAGE).toBe('App activated!');
    expect(photosUploadedMessage(3)).toBe('3 photos uploaded!');
    expect(photosUploadedMessage(1)).toBe('1 photo uploaded!');
    expect(uploadRewardMessage(1, 0)).toBe(PHOTO_UPLOADED_MESSAGE);
    expect(uploadRewardMessage(3, 1)).toBe('3 photos uploaded!');
    expect(uploadRewardMessage(0, 1)).toBe(ACHIEVEMENT_UNLOCKED_MESSAGE);
    expect(uploadRewardMessage(0, 0)).toBe('0 photos uploaded!');
    expect(READY_TO_SAVE_TIME_MESSAGE).toBe('Ready to save time!');
    expect(streakBonusDaysMessage(7)).toBe('7 day streak bonus!');
  });
});
