CREATE TABLE "imported_line_groups" (
	"id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"name" text NOT NULL,
	"source" text NOT NULL,
	"user_file_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "imported_lines" (
	"id" uuid PRIMARY KEY NOT NULL,
	"group_id" uuid NOT NULL,
	"company_id" uuid NOT NULL,
	"name" text,
	"origin" text NOT NULL,
	"pattern_type" text,
	"coordinates" jsonb NOT NULL,
	"min_lon" double precision NOT NULL,
	"min_lat" double precision NOT NULL,
	"max_lon" double precision NOT NULL,
	"max_lat" double precision NOT NULL
);
--> statement-breakpoint
ALTER TABLE "imported_line_groups" ADD CONSTRAINT "imported_line_groups_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "imported_line_groups" ADD CONSTRAINT "imported_line_groups_user_file_id_user_files_id_fk" FOREIGN KEY ("user_file_id") REFERENCES "public"."user_files"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "imported_lines" ADD CONSTRAINT "imported_lines_group_id_imported_line_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."imported_line_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "imported_lines" ADD CONSTRAINT "imported_lines_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "imported_line_groups_company_idx" ON "imported_line_groups" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "imported_lines_company_bbox_idx" ON "imported_lines" USING btree ("company_id","min_lon","max_lon");--> statement-breakpoint
CREATE INDEX "imported_lines_group_idx" ON "imported_lines" USING btree ("group_id");