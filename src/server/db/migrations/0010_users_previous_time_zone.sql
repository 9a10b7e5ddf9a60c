-- The zone a user's stored zone replaced (null: none, i.e. UTC), kept with time_zone_set_at, so a
-- daily reward rule can count the day in which the zone changed from the start of the old zone's
-- day (src/domain/time-zone.ts, rewardDayRange). Without it, moving the zone ahead started a new
-- day at once and paid the activation reward and the upload cap's 100 photos a second time.
ALTER TABLE "users" ADD COLUMN "previous_time_zone" text;
