CREATE TABLE "launch_codes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"code_hash" text NOT NULL,
	"user_id" uuid NOT NULL,
	"issued_by" uuid NOT NULL,
	"return_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
DROP INDEX "companies_partner_company_id_key";--> statement-breakpoint
DROP INDEX "users_partner_user_id_key";--> statement-breakpoint
ALTER TABLE "companies" ADD COLUMN "partner_owner_id" uuid;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "partner_owner_id" uuid;--> statement-breakpoint
ALTER TABLE "launch_codes" ADD CONSTRAINT "launch_codes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "launch_codes" ADD CONSTRAINT "launch_codes_issued_by_users_id_fk" FOREIGN KEY ("issued_by") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "launch_codes_code_hash_key" ON "launch_codes" USING btree ("code_hash");--> statement-breakpoint
CREATE INDEX "launch_codes_expires_idx" ON "launch_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "companies_partner_owner_company_key" ON "companies" USING btree ("partner_owner_id","partner_company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_partner_owner_user_key" ON "users" USING btree ("partner_owner_id","partner_user_id");