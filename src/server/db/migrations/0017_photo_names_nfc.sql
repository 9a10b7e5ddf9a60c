-- Photo names are composed (NFC) as they arrive since this release (photoNameFrom), as search words
-- are. A name stored decomposed before it (macOS sends file names so) kept its 'İ' as I + U+0307,
-- which PostgreSQL lowercases to 'i' + U+0307 in search_doc: 'İstanbul' found it, 'istanbul' did
-- not. Composing the name changes no letter shown, and search_doc (generated) follows. Only such
-- names are written. PostgreSQL normalizes only in a UTF8 database: in another (SQL_ASCII, what
-- initdb under the C locale makes, which the releases before ran on) the statement failed and the
-- server never started, so there the names stay as they are (search also tries decomposed forms).
DO $$
BEGIN
	IF pg_catalog.getdatabaseencoding() = 'UTF8' THEN
		UPDATE "photos" SET "name" = normalize("name", NFC) WHERE "name" IS NOT NFC NORMALIZED;
	END IF;
END
$$;
