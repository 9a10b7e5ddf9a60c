-- Passes over every row that a database needs once (db/passes.ts): the smart-album repair read
-- every photo at every start (7.6 s of background database time per 100,000 photos on PGlite).
-- Its row is due (done NULL), so the first start of this release runs it once more.
CREATE TABLE "data_passes" (
	"name" text PRIMARY KEY NOT NULL,
	"wanted" integer DEFAULT 1 NOT NULL,
	"done" integer,
	"resume_for" integer,
	"resume_after" text
);--> statement-breakpoint
INSERT INTO "data_passes" ("name") VALUES ('smart-album-repair') ON CONFLICT DO NOTHING;
