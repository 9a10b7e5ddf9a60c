-- Timeline by date taken, search, and visual fingerprints (the find feature). Written by hand:
-- the generated columns and the fingerprint table are read with SQL in features/find only, so they
-- are not in schema.ts (the gallery's `select` of photos then never carries a tsvector).
ALTER TABLE "photos" ADD COLUMN "sort_at" timestamp with time zone GENERATED ALWAYS AS (coalesce("taken_at", "uploaded_at")) STORED;--> statement-breakpoint
ALTER TABLE "photos" ADD COLUMN "search_doc" tsvector GENERATED ALWAYS AS (
  to_tsvector('simple'::regconfig,
    regexp_replace("name", '[._-]+', ' ', 'g') || ' ' ||
    replace(coalesce("category", ''), '_', ' ') || ' ' ||
    coalesce("description", '') || ' ' ||
    coalesce("exif"->>'Make', '') || ' ' || coalesce("exif"->>'Model', '') || ' ' || coalesce("exif"->>'LensModel', '') || ' ' ||
    (ARRAY['january','february','march','april','may','june','july','august','september','october','november','december'])[extract(month from timezone('UTC', coalesce("taken_at", "uploaded_at")))::int] || ' ' ||
    extract(year from timezone('UTC', coalesce("taken_at", "uploaded_at")))::int::text)
  || jsonb_to_tsvector('simple'::regconfig, "tags", '["string"]')
) STORED;--> statement-breakpoint
CREATE INDEX "photos_user_sort_idx" ON "photos" USING btree ("user_id", "sort_at" DESC NULLS LAST, "id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "photos_search_idx" ON "photos" USING gin ("search_doc");--> statement-breakpoint
CREATE TABLE "photo_fingerprints" (
	"photo_id" uuid PRIMARY KEY NOT NULL REFERENCES "photos"("id") ON DELETE cascade,
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE cascade,
	"model" text NOT NULL,
	"vector" bytea NOT NULL,
	"band0" integer NOT NULL,
	"band1" integer NOT NULL,
	"band2" integer NOT NULL,
	"band3" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "photo_fingerprints_band0_idx" ON "photo_fingerprints" USING btree ("user_id", "band0");--> statement-breakpoint
CREATE INDEX "photo_fingerprints_band1_idx" ON "photo_fingerprints" USING btree ("user_id", "band1");--> statement-breakpoint
CREATE INDEX "photo_fingerprints_band2_idx" ON "photo_fingerprints" USING btree ("user_id", "band2");--> statement-breakpoint
CREATE INDEX "photo_fingerprints_band3_idx" ON "photo_fingerprints" USING btree ("user_id", "band3");
