-- Failed sign-ins per account, shared by every server process (features/auth/sign-in-limit.ts): a
-- leaky bucket per normalised email (its SHA-256, so addresses typed by strangers are not kept in
-- clear), the level it held at updated_at, draining at a fixed rate. An email without an account
-- has one too, so the refusal tells nobody whether an account exists.
CREATE TABLE "sign_in_failures" (
	"key" text PRIMARY KEY NOT NULL,
	"level" double precision NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sign_in_failures_updated_idx" ON "sign_in_failures" USING btree ("updated_at");
--> statement-breakpoint
-- Browsers that signed in to an account (SHA-256 of their device cookie): their attempts are
-- outside the account's budget, so strangers spending it cannot lock the owner out.
CREATE TABLE "sign_in_devices" (
	"id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_used_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sign_in_devices_id_user_id_pk" PRIMARY KEY("id","user_id")
);
--> statement-breakpoint
ALTER TABLE "sign_in_devices" ADD CONSTRAINT "sign_in_devices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "sign_in_devices_user_idx" ON "sign_in_devices" USING btree ("user_id");
--> statement-breakpoint
CREATE INDEX "sign_in_devices_last_used_idx" ON "sign_in_devices" USING btree ("last_used_at");
