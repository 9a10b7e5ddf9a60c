-- Every user's library version and photo count, kept by triggers on photos in the same
-- transaction as the write (written by hand: drizzle-kit does not generate triggers). The gallery's
-- first pages are cached per user under this version, so every process on the same database sees a
-- write at once, whatever wrote it (uploads, deletes, analysis, filters, albums, favourites, scripts,
-- an album's ON DELETE SET NULL); the count is the pages' `total` without a count(*). Read with SQL
-- in features/photos only, so it is not in schema.ts.
CREATE TABLE "photo_library" (
	"user_id" uuid PRIMARY KEY NOT NULL REFERENCES "users"("id") ON DELETE cascade,
	"version" bigint DEFAULT 0 NOT NULL,
	"photo_count" integer DEFAULT 0 NOT NULL
);--> statement-breakpoint
INSERT INTO "photo_library" ("user_id", "version", "photo_count")
	SELECT "user_id", 1, count(*) FROM "photos" GROUP BY "user_id";--> statement-breakpoint
-- Statement-level: a 1,000-row insert moves each owner's row once, not 1,000 times.
CREATE FUNCTION "photo_library_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "photo_library" AS l ("user_id", "version", "photo_count")
		SELECT "user_id", 1, count(*) FROM new_rows GROUP BY "user_id" ORDER BY "user_id"
	ON CONFLICT ("user_id") DO UPDATE SET "version" = l."version" + 1, "photo_count" = l."photo_count" + excluded."photo_count";
	RETURN NULL;
END $$;--> statement-breakpoint
-- UPDATE, not an upsert: when a user is deleted their photos cascade after (or with) this row.
CREATE FUNCTION "photo_library_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "photo_library" AS l SET "version" = l."version" + 1, "photo_count" = l."photo_count" - d.n
		FROM (SELECT "user_id", count(*) AS n FROM old_rows GROUP BY "user_id") d
		WHERE l."user_id" = d."user_id";
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION "photo_library_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "photo_library" AS l SET "version" = l."version" + 1
		WHERE l."user_id" IN (SELECT "user_id" FROM new_rows UNION SELECT "user_id" FROM old_rows);
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "photo_library_on_insert" AFTER INSERT ON "photos"
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "photo_library_inserted"();--> statement-breakpoint
CREATE TRIGGER "photo_library_on_delete" AFTER DELETE ON "photos"
	REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "photo_library_deleted"();--> statement-breakpoint
CREATE TRIGGER "photo_library_on_update" AFTER UPDATE ON "photos"
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "photo_library_updated"();
