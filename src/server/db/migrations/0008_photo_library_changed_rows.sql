-- A photos UPDATE moves the owner's library version only for rows it really changed (written by
-- hand, as 0004). Before, every UPDATE did, also one that set what was already there: a revert of
-- a photo with no filter, or a favourite set to what it was, wrote the library row, told every
-- listening connection of every server process (0006) and threw away the owner's kept first
-- pages, and the revert has no request limit (nothing worth limiting when it changes nothing).
-- EXCEPT compares whole rows: a row is "changed" when no old row is equal to it in every column,
-- so every column of photos needs a type with equality (a json, point or xml column would make
-- each UPDATE fail here: use jsonb, as exif and tags do).
CREATE OR REPLACE FUNCTION "photo_library_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "photo_library" AS l SET "version" = l."version" + 1
		WHERE l."user_id" IN (
			SELECT c."user_id" FROM (SELECT * FROM new_rows EXCEPT SELECT * FROM old_rows) AS c
			UNION SELECT c."user_id" FROM (SELECT * FROM old_rows EXCEPT SELECT * FROM new_rows) AS c);
	RETURN NULL;
END $$;
