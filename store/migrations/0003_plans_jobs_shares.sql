CREATE TABLE "export_batches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"job_id" uuid,
	"format" text NOT NULL,
	"file_name" text NOT NULL,
	"content" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_items" (
	"job_id" uuid NOT NULL,
	"item_key" text NOT NULL,
	"path_plan_id" uuid,
	"error_code" text,
	"message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "job_items_job_id_item_key_pk" PRIMARY KEY("job_id","item_key")
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"user_id" uuid,
	"kind" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"request" jsonb NOT NULL,
	"total" integer NOT NULL,
	"result" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "path_plan_groups" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "path_plans" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"boundary_id" uuid,
	"field_id" uuid,
	"job_id" uuid,
	"group_id" uuid,
	"name" text NOT NULL,
	"operation_type" text DEFAULT 'generic' NOT NULL,
	"model" jsonb NOT NULL,
	"area" double precision DEFAULT 0 NOT NULL,
	"number_of_tracks" integer DEFAULT 0 NOT NULL,
	"trafficked_area" double precision DEFAULT 0 NOT NULL,
	"total_time" double precision DEFAULT 0 NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"starred" boolean DEFAULT false NOT NULL,
	"rating" integer,
	"rating_comment" text,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shares" (
	"id" uuid PRIMARY KEY NOT NULL,
	"code_hash" text NOT NULL,
	"company_id" uuid NOT NULL,
	"path_plan_id" uuid NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "export_batches" ADD CONSTRAINT "export_batches_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "export_batches" ADD CONSTRAINT "export_batches_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_items" ADD CONSTRAINT "job_items_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "path_plan_groups" ADD CONSTRAINT "path_plan_groups_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "path_plans" ADD CONSTRAINT "path_plans_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "path_plans" ADD CONSTRAINT "path_plans_group_id_path_plan_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."path_plan_groups"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shares" ADD CONSTRAINT "shares_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shares" ADD CONSTRAINT "shares_path_plan_id_path_plans_id_fk" FOREIGN KEY ("path_plan_id") REFERENCES "public"."path_plans"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shares" ADD CONSTRAINT "shares_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "export_batches_company_idx" ON "export_batches" USING btree ("company_id");--> statement-breakpoint
CREATE UNIQUE INDEX "export_batches_job_key" ON "export_batches" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "jobs_company_idx" ON "jobs" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "path_plan_groups_company_idx" ON "path_plan_groups" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "path_plans_company_idx" ON "path_plans" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "path_plans_boundary_idx" ON "path_plans" USING btree ("boundary_id");--> statement-breakpoint
CREATE INDEX "path_plans_field_idx" ON "path_plans" USING btree ("field_id");--> statement-breakpoint
CREATE INDEX "path_plans_group_idx" ON "path_plans" USING btree ("group_id");--> statement-breakpoint
CREATE UNIQUE INDEX "path_plans_job_boundary_key" ON "path_plans" USING btree ("job_id","boundary_id");--> statement-breakpoint
CREATE UNIQUE INDEX "shares_code_hash_key" ON "shares" USING btree ("code_hash");--> statement-breakpoint
CREATE INDEX "shares_company_idx" ON "shares" USING btree ("company_id");