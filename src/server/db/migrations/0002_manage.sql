ALTER TABLE "photos" ADD COLUMN "favorite" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "photos" ADD COLUMN "file_name" text;--> statement-breakpoint
CREATE INDEX "photos_user_favorite_idx" ON "photos" USING btree ("user_id","uploaded_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE favorite;