-- A category's timeline page (GET /api/photos/timeline?category=, find.repository.ts) and its count:
-- without an index of their own they walked the user's whole photos_user_sort_idx, filtering, so a
-- rare category in a large library read every photo. Keyed and ordered exactly as that query's
-- predicate (analyzed, coalesce(category, 'uncategorized')) and order (sort_at, id DESC NULLS LAST).
CREATE INDEX "photos_user_category_sort_idx" ON "photos" USING btree ("user_id", (coalesce("category", 'uncategorized')), "sort_at" DESC NULLS LAST, "id" DESC NULLS LAST) WHERE "analyzed";
