CREATE TABLE "boundary_dems" (
	"boundary_id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"uploaded_by" uuid,
	"file_name" text NOT NULL,
	"epsg" integer NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"cell_size" double precision NOT NULL,
	"size" integer NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "boundary_ndvi" (
	"boundary_id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"uploaded_by" uuid,
	"file_name" text NOT NULL,
	"statistics" jsonb NOT NULL,
	"zones" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "boundary_slope_analyses" (
	"boundary_id" uuid PRIMARY KEY NOT NULL,
	"company_id" uuid NOT NULL,
	"source" text NOT NULL,
	"analysis" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "boundary_dems" ADD CONSTRAINT "boundary_dems_boundary_id_boundaries_id_fk" FOREIGN KEY ("boundary_id") REFERENCES "public"."boundaries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boundary_dems" ADD CONSTRAINT "boundary_dems_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boundary_dems" ADD CONSTRAINT "boundary_dems_uploaded_by_users_id_fk" FOREIGN KEY ("uploaded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boundary_ndvi" ADD CONSTRAINT "boundary_ndvi_boundary_id_boundaries_id_fk" FOREIGN KEY ("boundary_id") REFERENCES "public"."boundaries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boundary_ndvi" ADD CONSTRAINT "boundary_ndvi_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boundary_ndvi" ADD CONSTRAINT "boundary_ndvi_uploaded_by_users_id_fk" FOREIGN KEY ("uploaded_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boundary_slope_analyses" ADD CONSTRAINT "boundary_slope_analyses_boundary_id_boundaries_id_fk" FOREIGN KEY ("boundary_id") REFERENCES "public"."boundaries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boundary_slope_analyses" ADD CONSTRAINT "boundary_slope_analyses_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;