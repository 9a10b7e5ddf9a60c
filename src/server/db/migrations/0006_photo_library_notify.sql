-- Every change of a user's library version is told on the channel eyevu_photo_library as
-- '<user id>:<version>:<photo count>' when its transaction commits (written by hand, as 0004). Each
-- server process keeps the versions it was told in memory (features/photos/library-versions.ts),
-- so a cached first page costs no database read; the writer's own connection hears it before its
-- statement returns, other processes' listening connections a moment later.
CREATE FUNCTION "photo_library_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('eyevu_photo_library', NEW."user_id"::text || ':' || NEW."version"::text || ':' || NEW."photo_count"::text);
	RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "photo_library_notify" AFTER INSERT OR UPDATE ON "photo_library"
	FOR EACH ROW EXECUTE FUNCTION "photo_library_notify"();
