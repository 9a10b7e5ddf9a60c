-- A Create Album retried after its answer was lost (the connection dropped) made the album twice,
-- and the copy counted against the 190-album cap. The client sends one Idempotency-Key per album it
-- means to make; the album keeps it with a hash of what was asked, and a retry under the same key
-- is answered with that album (albums.service.ts). NULLs are distinct: albums made without a key
-- (and smart albums) never collide.
ALTER TABLE "albums" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "albums" ADD COLUMN "request_hash" text;--> statement-breakpoint
CREATE UNIQUE INDEX "albums_user_idempotency_uq" ON "albums" USING btree ("user_id","idempotency_key");
