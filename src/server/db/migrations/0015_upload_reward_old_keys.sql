-- Upload rewards were keyed per upload request (`upload:<random id>`, before 2026-11-23) and are
-- keyed per photo content since (`upload:<sha256 of the original>`, rewards.service.ts), with
-- nothing written for the photos rewarded the old way: such a photo, deleted and uploaded again,
-- was rewarded a second time. The old key names no photo, but the release that wrote it rewarded
-- every photo it stored (5 points each, no cap), so each photo a user still has that was stored
-- no later than their last old-style upload entry was rewarded (or its request's award failed,
-- rare). Each such content gets its new-style key, with 0 points and its own source: the points,
-- the photos-uploaded count (points_totals counts source 'upload') and the day's upload cap stay
-- as they are; the key alone makes a re-upload add nothing. Originals are content-addressed
-- (original_key is the sha256 of the uploaded bytes, as the new key's), so no file is read. Demo
-- photos were never rewarded. A content rewarded the new way already keeps its entry.
INSERT INTO "points_ledger" ("user_id", "source", "source_event_id", "points", "message", "created_at")
	SELECT DISTINCT ON (p."user_id", p."original_key") p."user_id", 'upload-before-content-keys',
		'upload:' || p."original_key", 0, NULL, p."uploaded_at"
	FROM "photos" p
	JOIN (SELECT "user_id", max("created_at") AS "last" FROM "points_ledger"
		WHERE "source" = 'upload' AND "source_event_id" !~ '^upload:[0-9a-f]{64}$'
		GROUP BY "user_id") o ON o."user_id" = p."user_id"
	WHERE p."demo_key" IS NULL AND p."uploaded_at" <= o."last"
	ORDER BY p."user_id", p."original_key", p."uploaded_at"
ON CONFLICT ("user_id", "source_event_id") DO NOTHING;
