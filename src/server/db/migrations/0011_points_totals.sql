-- Each user's running totals of the points ledger and of the activities, kept by triggers in the
-- same transaction as the write (written by hand, as 0004 and 0009): the points, the 'upload'
-- entries (photos uploaded, 0-point ones past the day's cap included), the activities (ads
-- skipped) and their time saved. The rewards snapshot (features/rewards/ledger.ts, on the rewards,
-- stats, login, activation, ad and upload paths) read them by summing all of the user's rows:
-- ~72 ms per call at 100,000 entries on the embedded database, whose one thread every user waits
-- behind, and an account grows its own ledger (an ad script writes two entries every 13 s, each
-- upload past the cap one 0-point entry). Now it reads one row.
-- Rows of both tables are written once and never updated; they are deleted only with their user,
-- whose totals row goes with them (ON DELETE cascade), so there are no UPDATE or DELETE triggers.
CREATE TABLE "points_totals" (
	"user_id" uuid PRIMARY KEY NOT NULL REFERENCES "users"("id") ON DELETE cascade,
	"points" bigint DEFAULT 0 NOT NULL,
	"upload_entries" bigint DEFAULT 0 NOT NULL,
	"activity_count" bigint DEFAULT 0 NOT NULL,
	"time_saved" bigint DEFAULT 0 NOT NULL
);--> statement-breakpoint
-- Statement-level: an award's entries move the row once. An INSERT ... ON CONFLICT DO NOTHING puts
-- only the rows it inserted in new_rows, so a replay moves nothing. The upsert's increment is
-- atomic: a racing award waits for this row's lock and adds to the committed value (PostgreSQL
-- re-reads the row on conflict), so none is lost. Ordered by user, so two multi-user statements
-- take the rows' locks in one order.
CREATE FUNCTION "points_totals_ledger_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "points_totals" AS t ("user_id", "points", "upload_entries")
		SELECT "user_id", sum("points"), count(*) FILTER (WHERE "source" = 'upload')
		FROM new_rows GROUP BY "user_id" ORDER BY "user_id"
	ON CONFLICT ("user_id") DO UPDATE SET "points" = t."points" + excluded."points",
		"upload_entries" = t."upload_entries" + excluded."upload_entries";
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "points_totals_activities_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "points_totals" AS t ("user_id", "activity_count", "time_saved")
		SELECT "user_id", count(*), sum("time_saved")
		FROM new_rows GROUP BY "user_id" ORDER BY "user_id"
	ON CONFLICT ("user_id") DO UPDATE SET "activity_count" = t."activity_count" + excluded."activity_count",
		"time_saved" = t."time_saved" + excluded."time_saved";
	RETURN NULL;
END $$;--> statement-breakpoint
-- The triggers before the backfill: CREATE TRIGGER locks each table against writes until the
-- migration commits, so no row lands between the backfill's read and the triggers (on PostgreSQL
-- another server process may be writing while this one migrates).
CREATE TRIGGER "points_totals_on_ledger_insert" AFTER INSERT ON "points_ledger"
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "points_totals_ledger_inserted"();--> statement-breakpoint
CREATE TRIGGER "points_totals_on_activity_insert" AFTER INSERT ON "activities"
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "points_totals_activities_inserted"();--> statement-breakpoint
INSERT INTO "points_totals" ("user_id", "points", "upload_entries", "activity_count", "time_saved")
	SELECT "user_id", sum("points"), sum("upload_entries"), sum("activity_count"), sum("time_saved") FROM (
		SELECT "user_id", sum("points") AS "points", count(*) FILTER (WHERE "source" = 'upload') AS "upload_entries",
			0 AS "activity_count", 0 AS "time_saved"
		FROM "points_ledger" GROUP BY "user_id"
		UNION ALL
		SELECT "user_id", 0, 0, count(*), sum("time_saved") FROM "activities" GROUP BY "user_id") x
	GROUP BY "user_id";--> statement-breakpoint
-- The login days the snapshot still reads from the ledger (one entry a day): found through this
-- index, not among all of the user's entries. Queries name the source as a literal ('login'), so
-- a prepared statement's generic plan can use it too.
CREATE INDEX "points_ledger_user_login_idx" ON "points_ledger" ("user_id", "created_at") WHERE "source" = 'login';
