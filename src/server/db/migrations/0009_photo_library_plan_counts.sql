-- The plan's counts kept on each user's library row by the triggers that keep its version (0004,
-- 0008), in the same transaction as the write (written by hand, as 0004): the photos the free
-- plan's limit counts and the bytes of their originals (demo photos, demo_key set, count toward
-- neither, as before). An upload checks both twice, the second time under the user's lock; counted
-- and summed over the user's photos that cost ~50 ms at 100,000 photos on the embedded database,
-- whose one session every other request waits behind. Versions' bytes are still summed per user
-- (photo_versions has no owner column, and a photo's delete removes its versions first).
ALTER TABLE "photo_library" ADD COLUMN "counted" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "photo_library" ADD COLUMN "original_bytes" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "photo_library" AS l SET "counted" = c."n", "original_bytes" = c."bytes"
	FROM (SELECT "user_id", count(*) AS "n", coalesce(sum("size"), 0) AS "bytes"
		FROM "photos" WHERE "demo_key" IS NULL GROUP BY "user_id") c
	WHERE l."user_id" = c."user_id";--> statement-breakpoint
CREATE OR REPLACE FUNCTION "photo_library_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO "photo_library" AS l ("user_id", "version", "photo_count", "counted", "original_bytes")
		SELECT "user_id", 1, count(*), count(*) FILTER (WHERE "demo_key" IS NULL),
			coalesce(sum("size") FILTER (WHERE "demo_key" IS NULL), 0)
		FROM new_rows GROUP BY "user_id" ORDER BY "user_id"
	ON CONFLICT ("user_id") DO UPDATE SET "version" = l."version" + 1, "photo_count" = l."photo_count" + excluded."photo_count",
		"counted" = l."counted" + excluded."counted", "original_bytes" = l."original_bytes" + excluded."original_bytes";
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "photo_library_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "photo_library" AS l SET "version" = l."version" + 1, "photo_count" = l."photo_count" - d."n",
		"counted" = l."counted" - d."counted", "original_bytes" = l."original_bytes" - d."bytes"
		FROM (SELECT "user_id", count(*) AS "n", count(*) FILTER (WHERE "demo_key" IS NULL) AS "counted",
			coalesce(sum("size") FILTER (WHERE "demo_key" IS NULL), 0) AS "bytes"
			FROM old_rows GROUP BY "user_id") d
		WHERE l."user_id" = d."user_id";
	RETURN NULL;
END $$;--> statement-breakpoint
-- Size, demo_key and owner are written once, at insert; should an update ever change them, the
-- counts follow. A trigger of its own, beside 0008's version trigger, which stays as it is; an
-- update that moves no count writes nothing.
CREATE FUNCTION "photo_library_counts_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "photo_library" AS l SET "counted" = l."counted" + d."counted", "original_bytes" = l."original_bytes" + d."bytes"
		FROM (SELECT "user_id", sum("c") AS "counted", sum("b") AS "bytes" FROM (
				SELECT "user_id", 1 AS "c", "size"::bigint AS "b" FROM new_rows WHERE "demo_key" IS NULL
				UNION ALL
				SELECT "user_id", -1, -"size"::bigint FROM old_rows WHERE "demo_key" IS NULL) x
			GROUP BY "user_id" HAVING sum("c") <> 0 OR sum("b") <> 0) d
		WHERE l."user_id" = d."user_id";
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "photo_library_counts_on_update" AFTER UPDATE ON "photos"
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "photo_library_counts_updated"();
